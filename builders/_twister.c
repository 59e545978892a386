/* noisecraft._twister: Python's Mersenne Twister streams, seeded four at a time.
 *
 * What: twisters(keys) takes a list of seeds written as big-endian bytes (a 16-byte blake2b digest is the 128-bit
 * seed int.from_bytes(digest, "big")) and returns one Twister per seed whose random() is, draw for draw, the
 * random() of random.Random(int.from_bytes(key, "big")): CPython's init_by_array seeding (the seed's 32-bit words,
 * least significant first, leading zero words dropped), its twist, tempering and 53-bit doubles.
 *
 * Why: seeding random.Random runs three dependent chains of 624 multiply steps (init_genrand(19650218), which is
 * the same for every seed, then init_by_array's two passes) and the first twist; for keyboard noise on a question
 * that is 40 % of the work. Here the constant chain is computed once, and four seeds of four words (every 128-bit
 * digest but one in 2^32) run their chains side by side, so the processor overlaps their multiplications. The
 * first twist stays lazy, as in CPython. Other seeds take the one-seed path, the same code as CPython's.
 * tests/test_seeding.py compares the streams with random.Random's, past the first twist.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define N 624
#define M 397
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU
#define LANES 4 /* seed_lanes is written out for four */
#define MAX_KEY_WORDS 64 /* 2048-bit seeds; longer keys are refused */

typedef struct {
    PyObject_HEAD
    int index;
    uint32_t mt[N];
} TwisterObject;

static uint32_t start_state[N]; /* init_genrand(19650218), where every init_by_array starts */

static void init_start_state(void) {
    start_state[0] = 19650218U;
    for (int i = 1; i < N; i++) {
        start_state[i] = 1812433253U * (start_state[i - 1] ^ (start_state[i - 1] >> 30)) + (uint32_t)i;
    }
}

/* CPython's init_by_array for one key (1 <= key_length <= MAX_KEY_WORDS). */
static void seed_one(uint32_t *mt, const uint32_t *key, size_t key_length) {
    size_t i = 1, j = 0, k = N > key_length ? N : key_length;
    memcpy(mt, start_state, sizeof(start_state));
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= N) {
            mt[0] = mt[N - 1];
            i = 1;
        }
        if (j >= key_length) j = 0;
    }
    for (k = N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= N) {
            mt[0] = mt[N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
}

/* seed_one for LANES keys of exactly 4 words at once: the same steps, the lanes interleaved, each lane's last
 * value kept in a register (the chain never waits on a store and a load). */
static void seed_lanes(uint32_t *mt[LANES], uint32_t key[LANES][4]) {
    uint32_t *s0 = mt[0], *s1 = mt[1], *s2 = mt[2], *s3 = mt[3];
    uint32_t p0 = start_state[0], p1 = p0, p2 = p0, p3 = p0, old;
    size_t i, j;
    /* first pass, i = 1..N-1: the old values are the start state, the same for every lane */
    for (i = 1, j = 0; i < N; i++, j = (j + 1) & 3) {
        old = start_state[i];
        s0[i] = p0 = (old ^ ((p0 ^ (p0 >> 30)) * 1664525U)) + key[0][j] + (uint32_t)j;
        s1[i] = p1 = (old ^ ((p1 ^ (p1 >> 30)) * 1664525U)) + key[1][j] + (uint32_t)j;
        s2[i] = p2 = (old ^ ((p2 ^ (p2 >> 30)) * 1664525U)) + key[2][j] + (uint32_t)j;
        s3[i] = p3 = (old ^ ((p3 ^ (p3 >> 30)) * 1664525U)) + key[3][j] + (uint32_t)j;
    }
    /* its last step wraps: mt[0] = mt[N-1], then i = 1 once more (j is N-1 mod 4 = 3) */
    s0[0] = p0, s1[0] = p1, s2[0] = p2, s3[0] = p3;
    s0[1] = p0 = (s0[1] ^ ((p0 ^ (p0 >> 30)) * 1664525U)) + key[0][3] + 3U;
    s1[1] = p1 = (s1[1] ^ ((p1 ^ (p1 >> 30)) * 1664525U)) + key[1][3] + 3U;
    s2[1] = p2 = (s2[1] ^ ((p2 ^ (p2 >> 30)) * 1664525U)) + key[2][3] + 3U;
    s3[1] = p3 = (s3[1] ^ ((p3 ^ (p3 >> 30)) * 1664525U)) + key[3][3] + 3U;
    /* second pass: i = 2..N-1, then the wrap and i = 1 */
    for (i = 2; i < N; i++) {
        s0[i] = p0 = (s0[i] ^ ((p0 ^ (p0 >> 30)) * 1566083941U)) - (uint32_t)i;
        s1[i] = p1 = (s1[i] ^ ((p1 ^ (p1 >> 30)) * 1566083941U)) - (uint32_t)i;
        s2[i] = p2 = (s2[i] ^ ((p2 ^ (p2 >> 30)) * 1566083941U)) - (uint32_t)i;
        s3[i] = p3 = (s3[i] ^ ((p3 ^ (p3 >> 30)) * 1566083941U)) - (uint32_t)i;
    }
    s0[1] = (s0[1] ^ ((p0 ^ (p0 >> 30)) * 1566083941U)) - 1U;
    s1[1] = (s1[1] ^ ((p1 ^ (p1 >> 30)) * 1566083941U)) - 1U;
    s2[1] = (s2[1] ^ ((p2 ^ (p2 >> 30)) * 1566083941U)) - 1U;
    s3[1] = (s3[1] ^ ((p3 ^ (p3 >> 30)) * 1566083941U)) - 1U;
    s0[0] = s1[0] = s2[0] = s3[0] = 0x80000000U;
}

/* CPython's genrand_uint32: twist when the state is used up, then temper. */
static uint32_t next_word(TwisterObject *self) {
    static const uint32_t mag01[2] = {0x0U, MATRIX_A};
    uint32_t *mt = self->mt, y;
    if (self->index >= N) {
        int kk;
        for (kk = 0; kk < N - M; kk++) {
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < N - 1; kk++) {
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        self->index = 0;
    }
    y = mt[self->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static PyObject *Twister_random(TwisterObject *self, PyObject *Py_UNUSED(ignored)) {
    uint32_t a = next_word(self) >> 5, b = next_word(self) >> 6;
    return PyFloat_FromDouble((a * 67108864.0 + b) * (1.0 / 9007199254740992.0));
}

static PyMethodDef Twister_methods[] = {
    {"random", (PyCFunction)Twister_random, METH_NOARGS, "x in the interval [0, 1): random.Random's next random()."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TwisterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "noisecraft._twister.Twister",
    .tp_doc = "A Mersenne Twister seeded by twisters(): random.Random's random() stream for its seed.",
    .tp_basicsize = sizeof(TwisterObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Twister_methods,
};

/* The seed's 32-bit words, least significant first, leading zero words dropped (at least one word), as
 * CPython's random_seed reads abs(n). Returns the word count, or -1 with an exception set. */
static Py_ssize_t key_words(PyObject *item, uint32_t *key) {
    if (!PyBytes_Check(item)) {
        PyErr_Format(PyExc_TypeError, "twisters() takes a list of bytes, got %.80s", Py_TYPE(item)->tp_name);
        return -1;
    }
    const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(item);
    Py_ssize_t size = PyBytes_GET_SIZE(item), words = (size + 3) / 4, used = 0;
    if (words > MAX_KEY_WORDS) {
        PyErr_Format(PyExc_ValueError, "twisters() takes seeds of at most %d bytes, got %zd", 4 * MAX_KEY_WORDS, size);
        return -1;
    }
    for (Py_ssize_t w = 0; w < words; w++) {
        uint32_t word = 0;
        for (Py_ssize_t b = 3; b >= 0; b--) { /* byte size-1-4w-b counted from the big end */
            Py_ssize_t at = size - 1 - 4 * w - b;
            word = (word << 8) | (at >= 0 ? bytes[at] : 0);
        }
        key[w] = word;
        if (word) used = w + 1;
    }
    if (!used) {
        key[0] = 0;
        used = 1;
    }
    return used;
}

static PyObject *twisters(PyObject *Py_UNUSED(module), PyObject *keys) {
    if (!PyList_Check(keys)) {
        PyErr_SetString(PyExc_TypeError, "twisters() takes a list of bytes");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(keys), pending = 0;
    PyObject *result = PyList_New(n);
    if (!result) return NULL;
    uint32_t *lane_state[LANES], lane_key[LANES][4], key[MAX_KEY_WORDS];
    for (Py_ssize_t index = 0; index < n; index++) {
        Py_ssize_t used = key_words(PyList_GET_ITEM(keys, index), key);
        TwisterObject *twister = used < 0 ? NULL : PyObject_New(TwisterObject, &TwisterType);
        if (!twister) {
            Py_DECREF(result);
            return NULL;
        }
        twister->index = N; /* twist on the first draw */
        PyList_SET_ITEM(result, index, (PyObject *)twister);
        if (used != 4) {
            seed_one(twister->mt, key, (size_t)used);
            continue;
        }
        memcpy(lane_key[pending], key, sizeof(lane_key[pending]));
        lane_state[pending++] = twister->mt;
        if (pending == LANES) {
            seed_lanes(lane_state, lane_key);
            pending = 0;
        }
    }
    for (Py_ssize_t l = 0; l < pending; l++) seed_one(lane_state[l], lane_key[l], 4);
    return result;
}

static PyMethodDef module_methods[] = {
    {"twisters", twisters, METH_O,
     "twisters(keys: list[bytes]) -> list[Twister]: one generator per big-endian seed, each drawing "
     "random.Random(int.from_bytes(key, 'big')).random()'s stream."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef twister_module = {
    PyModuleDef_HEAD_INIT, "noisecraft._twister",
    "Python's Mersenne Twister streams for many seeds, seeded in interleaved batches (see seeding.py).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__twister(void) {
    if (PyType_Ready(&TwisterType) < 0) return NULL;
    init_start_state();
    return PyModule_Create(&twister_module);
}
