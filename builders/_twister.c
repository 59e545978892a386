/* noisecraft._twister: Python's Mersenne Twister streams, seeded four at a time, first draws ready.
 *
 * What: twisters(keys, type) takes a list of seeds written as big-endian bytes (a 16-byte blake2b digest is the
 * 128-bit seed int.from_bytes(digest, "big")) and returns one generator per seed, an instance of ``type`` (Twister
 * or a subclass of it), whose random() is, draw for draw, the random() of random.Random(int.from_bytes(key, "big")):
 * CPython's init_by_array seeding (the seed's 32-bit words, least significant first, leading zero words dropped),
 * its twist, tempering and 53-bit doubles; choice(items) picks an item as seeding.py's does.
 *
 * Why: seeding random.Random runs three dependent chains of 624 multiply steps (init_genrand(19650218), which is
 * the same for every seed, then init_by_array's two passes), then twists all 624 words on the first draw; for
 * keyboard noise on a question that was 40 % of the work, and a question needs about 15 draws (30 words). Here:
 * - the constant chain is computed once, and four seeds of four words (every 128-bit digest but one in 2^32) run
 *   their chains side by side, so the processor overlaps their multiplications;
 * - the seeded state stays in a scratch buffer (hot in the cache) and only the first FIRST_WORDS outputs of the
 *   first twist are computed and kept (the first 227 words of a twist read only the untwisted state, so any
 *   prefix of them can be computed alone): a generator is ~450 bytes instead of 2.5 KB;
 * - a stream that draws more is seeded again from its key into a full state, twisted, and goes on at word
 *   FIRST_WORDS: the same stream. Seeds of another length take that full path from the start.
 * tests/test_seeding.py compares the streams with random.Random's, before and past the buffered words and past
 * the first twist.
 *
 * typo_tokens() is keyboard@2's NoiseQA token loop (keyboard.py's typo_each_token) on these generators: with the
 * draws in C, the Python loop around them was three quarters of that model's time. It is here, not in a module of
 * its own, because it draws from the generators' state directly. tests/test_keyboard.py checks it against the
 * Python loop, which stays the reference and the path for any other generator.
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
#define FIRST_WORDS 96 /* outputs computed at seeding (48 doubles); at most N - M, see first_words */

typedef struct {
    PyObject_HEAD
    uint32_t *mt;        /* the whole state, once the stream has outgrown words (or its key is not 4 words) */
    int index;           /* the next output: into words while mt is NULL, else into mt */
    uint32_t key[4];     /* a 4-word key, to seed mt when words run out */
    uint32_t words[FIRST_WORDS]; /* the first outputs, tempered */
} TwisterObject;

static const uint32_t mag01[2] = {0x0U, MATRIX_A};
static uint32_t start_state[N]; /* init_genrand(19650218), where every init_by_array starts */

static void init_start_state(void) {
    start_state[0] = 19650218U;
    for (int i = 1; i < N; i++) {
        start_state[i] = 1812433253U * (start_state[i - 1] ^ (start_state[i - 1] >> 30)) + (uint32_t)i;
    }
}

static inline uint32_t temper(uint32_t y) {
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
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
static void seed_lanes(uint32_t mt[LANES][N], uint32_t key[LANES][4]) {
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

/* The first FIRST_WORDS outputs of the first twist of a seeded state, tempered. A twist computes word kk from
 * words kk, kk+1 and kk+M; for kk < N-M none of them has been twisted yet, so these words need nothing else. */
static void first_words(const uint32_t *mt, uint32_t *out) {
    for (int kk = 0; kk < FIRST_WORDS; kk++) {
        uint32_t y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        out[kk] = temper(mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U]);
    }
}

/* CPython's twist of a whole state. */
static void twist(uint32_t *mt) {
    uint32_t y;
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
}

/* The stream's next 32-bit output (CPython's genrand_uint32), or -1 with MemoryError set when the full state
 * cannot be made. */
static inline int next_word(TwisterObject *self, uint32_t *out) {
    if (!self->mt) {
        if (self->index < FIRST_WORDS) {
            *out = self->words[self->index++];
            return 0;
        }
        /* the first words are used up: the full state, seeded again and twisted, goes on at word FIRST_WORDS */
        uint32_t *mt = PyMem_Malloc(N * sizeof(uint32_t));
        if (!mt) {
            PyErr_NoMemory();
            return -1;
        }
        seed_one(mt, self->key, 4);
        twist(mt);
        self->mt = mt;
    }
    if (self->index >= N) {
        twist(self->mt);
        self->index = 0;
    }
    *out = temper(self->mt[self->index++]);
    return 0;
}

/* random.Random.random(): a 53-bit double from two outputs; -1.0 with an exception set on failure. */
static inline double next_double(TwisterObject *self) {
    uint32_t a, b;
    if (next_word(self, &a) < 0 || next_word(self, &b) < 0) return -1.0;
    return ((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0);
}

static PyObject *Twister_random(TwisterObject *self, PyObject *Py_UNUSED(ignored)) {
    double u = next_double(self);
    return u < 0 ? NULL : PyFloat_FromDouble(u);
}

/* _Draws.choice in C: items[int(random() * len(items))], the same draw and index. */
static PyObject *Twister_choice(TwisterObject *self, PyObject *items) {
    Py_ssize_t n = PyObject_Length(items);
    if (n < 0) return NULL;
    double u = next_double(self);
    if (u < 0) return NULL;
    Py_ssize_t at = (Py_ssize_t)(u * (double)n);
    if (PyTuple_CheckExact(items) && at < n) return Py_NewRef(PyTuple_GET_ITEM(items, at));
    if (PyList_CheckExact(items) && at < n) return Py_NewRef(PyList_GET_ITEM(items, at));
    PyObject *key = PyLong_FromSsize_t(at);
    if (!key) return NULL;
    PyObject *item = PyObject_GetItem(items, key);
    Py_DECREF(key);
    return item;
}

static void Twister_dealloc(TwisterObject *self) {
    PyMem_Free(self->mt);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Twister_methods[] = {
    {"random", (PyCFunction)Twister_random, METH_NOARGS, "x in the interval [0, 1): random.Random's next random()."},
    {"choice", (PyCFunction)Twister_choice, METH_O,
     "choice(items) -> a uniform element of a non-empty sequence: items[int(random() * len(items))]."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TwisterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "noisecraft._twister.Twister",
    .tp_doc = "A Mersenne Twister made by twisters(): random.Random's random() stream for its seed.",
    .tp_basicsize = sizeof(TwisterObject),
    .tp_dealloc = (destructor)Twister_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_methods = Twister_methods,
};

/* ---- keyboard@2's NoiseQA token loop (keyboard.py's typo_each_token, the Python reference) -------------------
 * It lives here because it draws from a Twister's state directly: per whitespace token (str.split's tokens) one
 * draw; a token drawn below the rate looks its typo sites up in the memo (sites_of(token) on a miss), and when it
 * has some and touches no protected span, one draw picks a site (i, j, candidates) and one a candidate. The same
 * draws in the same order as the Python loop, the same records (Edit and Noised instances), offsets in code points. */

typedef struct {
    Py_ssize_t start, end;
} Range;

typedef struct {
    PyObject *memo, *sites_of, *kind, *empty;
    PyTypeObject *edit_type, *noised_type;
    PyObject *defaults;
    double rate;
    Range *tokens;
    Py_ssize_t capacity;
} TypoJob;

/* An instance of a tuple subclass (a NamedTuple) holding items, stolen; NULL on failure (items released). */
static PyObject *record(PyTypeObject *type, PyObject **items, Py_ssize_t n) {
    PyObject *made = type->tp_alloc(type, n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (made && items[i]) {
            PyTuple_SET_ITEM(made, i, items[i]);
        } else {
            Py_XDECREF(items[i]);
        }
    }
    for (Py_ssize_t i = 0; made && i < n; i++) {
        if (!items[i]) Py_CLEAR(made);
    }
    return made;
}

/* The whitespace tokens of text into job->tokens; their count, or -1 with MemoryError set. */
static Py_ssize_t split_tokens(TypoJob *job, PyObject *text) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), at = 0, n = 0;
    while (at < length) {
        while (at < length && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, at))) at++;
        if (at >= length) break;
        Py_ssize_t start = at;
        while (at < length && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, at))) at++;
        if (n == job->capacity) {
            Py_ssize_t capacity = job->capacity ? 2 * job->capacity : 64;
            Range *grown = PyMem_Realloc(job->tokens, capacity * sizeof(Range));
            if (!grown) {
                PyErr_NoMemory();
                return -1;
            }
            job->tokens = grown, job->capacity = capacity;
        }
        job->tokens[n].start = start, job->tokens[n].end = at;
        n++;
    }
    return n;
}

/* Whether [start, end) overlaps one of the protected spans (a list or tuple of (start, end) pairs); -1 on error.
 * Reading a span that is neither a tuple nor a list runs Python code (its __iter__), which may change the caller's
 * list: its size is read again at each step, and each span and its bounds are held while they are read. */
static int touches(PyObject *spans, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(spans); i++) {
        PyObject *span = Py_NewRef(PySequence_Fast_GET_ITEM(spans, i));
        PyObject *pair = PySequence_Fast(span, "a protected span is a (start, end) pair");
        Py_DECREF(span);
        if (!pair) return -1;
        if (PySequence_Fast_GET_SIZE(pair) != 2) {
            Py_DECREF(pair);
            PyErr_SetString(PyExc_ValueError, "a protected span is a (start, end) pair");
            return -1;
        }
        PyObject *first = Py_NewRef(PySequence_Fast_GET_ITEM(pair, 0));
        PyObject *second = Py_NewRef(PySequence_Fast_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        Py_ssize_t s = PyLong_AsSsize_t(first);
        Py_ssize_t e = s == -1 && PyErr_Occurred() ? -1 : PyLong_AsSsize_t(second);
        Py_DECREF(first);
        Py_DECREF(second);
        if (e == -1 && PyErr_Occurred()) return -1;
        if (start < e && s < end) return 1;
    }
    return 0;
}

/* One text's typo: appends its Edit to edits and its two text pieces to pieces; 0 when the token gets none
 * (no sites, protected), 1 when it got one, -1 on error. */
static int typo_token(TypoJob *job, PyObject *text, TwisterObject *rng, PyObject *spans, Range token,
                      PyObject *edits, PyObject *pieces, Py_ssize_t *cursor) {
    PyObject *word = PyUnicode_Substring(text, token.start, token.end), *sites = NULL, *site = NULL,
             *candidates = NULL;
    int status = -1;
    if (!word) return -1;
    sites = PyDict_GetItemWithError(job->memo, word);
    if (sites) {
        Py_INCREF(sites);
    } else if (!PyErr_Occurred()) {
        sites = PyObject_CallOneArg(job->sites_of, word);
    }
    /* tuples (the memo's are; others are copied): touches() and reading a site run Python code that could change
     * a list */
    PyObject *fast = sites ? PySequence_Tuple(sites) : NULL;
    if (!fast) goto done;
    Py_ssize_t nsites = PyTuple_GET_SIZE(fast);
    int blocked = nsites && spans ? touches(spans, token.start, token.end) : 0;
    if (blocked < 0) goto done;
    if (!nsites || blocked) {
        status = 0;
        goto done;
    }
    double u = next_double(rng);
    if (u < 0) goto done;
    site = PySequence_Tuple(PyTuple_GET_ITEM(fast, (Py_ssize_t)(u * (double)nsites)));
    if (!site) goto done;
    if (PyTuple_GET_SIZE(site) != 3) {
        PyErr_SetString(PyExc_ValueError, "a typo site is (start, end, candidates)");
        goto done;
    }
    Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(site, 0));
    Py_ssize_t j = i == -1 && PyErr_Occurred() ? -1 : PyLong_AsSsize_t(PyTuple_GET_ITEM(site, 1));
    if (j == -1 && PyErr_Occurred()) goto done;
    candidates = PySequence_Fast(PyTuple_GET_ITEM(site, 2), "typo candidates are a sequence");
    if (!candidates) goto done;
    Py_ssize_t ncandidates = PySequence_Fast_GET_SIZE(candidates);
    u = next_double(rng);
    if (u < 0) goto done;
    Py_ssize_t pick = (Py_ssize_t)(u * (double)ncandidates);
    if (pick >= ncandidates) {
        PyErr_SetString(PyExc_IndexError, "a typo site has no candidates");
        goto done;
    }
    PyObject *replacement = PySequence_Fast_GET_ITEM(candidates, pick);
    Py_ssize_t start = token.start + i, end = token.start + j;
    PyObject *items[5] = {PyLong_FromSsize_t(start), PyLong_FromSsize_t(end), PyUnicode_Substring(text, start, end),
                          Py_NewRef(replacement), Py_NewRef(job->kind)};
    PyObject *edit = record(job->edit_type, items, 5);
    if (!edit) goto done;
    int failed = PyList_Append(edits, edit);
    Py_DECREF(edit);
    if (failed) goto done;
    PyObject *before = PyUnicode_Substring(text, *cursor, start);
    failed = !before || PyList_Append(pieces, before) || PyList_Append(pieces, replacement);
    Py_XDECREF(before);
    if (failed) goto done;
    *cursor = end;
    status = 1;
done:
    Py_DECREF(word);
    Py_XDECREF(sites);
    Py_XDECREF(fast);
    Py_XDECREF(site);
    Py_XDECREF(candidates);
    return status;
}

/* One text's Noised record, or NULL with an exception set. */
static PyObject *typo_text(TypoJob *job, PyObject *text, TwisterObject *rng, PyObject *spans) {
    Py_ssize_t n = split_tokens(job, text), cursor = 0;
    if (n < 0) return NULL;
    PyObject *edits = PyList_New(0), *pieces = PyList_New(0), *noised = NULL;
    if (!edits || !pieces) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        double u = next_double(rng);
        if (u < 0) goto done;
        if (u < job->rate && typo_token(job, text, rng, spans, job->tokens[k], edits, pieces, &cursor) < 0) goto done;
    }
    Py_ssize_t ndefaults = PyTuple_GET_SIZE(job->defaults);
    PyObject *items[2 + 8] = {NULL};
    if (ndefaults > 8) {
        PyErr_SetString(PyExc_ValueError, "a Noised record has at most 8 defaulted fields here");
        goto done;
    }
    if (PyList_GET_SIZE(edits)) {
        PyObject *rest = PyUnicode_Substring(text, cursor, PyUnicode_GET_LENGTH(text));
        if (!rest || PyList_Append(pieces, rest) < 0) {
            Py_XDECREF(rest);
            goto done;
        }
        Py_DECREF(rest);
        items[0] = PyUnicode_Join(job->empty, pieces);
        items[1] = PyList_AsTuple(edits);
    } else {
        items[0] = Py_NewRef(text);
        items[1] = PyTuple_New(0);
    }
    for (Py_ssize_t d = 0; d < ndefaults; d++) items[2 + d] = Py_NewRef(PyTuple_GET_ITEM(job->defaults, d));
    noised = record(job->noised_type, items, 2 + ndefaults);
done:
    Py_XDECREF(edits);
    Py_XDECREF(pieces);
    return noised;
}

static PyObject *typo_tokens(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_Format(PyExc_TypeError, "typo_tokens() takes 9 arguments, got %zd", nargs);
        return NULL;
    }
    TypoJob job = {.memo = args[4], .sites_of = args[5], .defaults = args[8]};
    if (!PyDict_Check(job.memo) || !PyTuple_Check(job.defaults) || !PyType_Check(args[6]) || !PyType_Check(args[7]) ||
        !PyType_IsSubtype((PyTypeObject *)args[6], &PyTuple_Type) ||
        !PyType_IsSubtype((PyTypeObject *)args[7], &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "typo_tokens(texts, rngs, protected, rate, memo: dict, sites_of, Edit, Noised, "
                                         "defaults: tuple): Edit and Noised are tuple types");
        return NULL;
    }
    job.edit_type = (PyTypeObject *)args[6], job.noised_type = (PyTypeObject *)args[7];
    job.rate = PyFloat_AsDouble(args[3]);
    if (job.rate == -1.0 && PyErr_Occurred()) return NULL;
    /* tuples, not the caller's lists: sites_of and reading spans (__bool__, __iter__) run Python code, which must not
     * free a text or a generator in use, nor shrink what is iterated (a text's spans: see touches) */
    PyObject *texts = PySequence_Tuple(args[0]);
    PyObject *rngs = texts ? PySequence_Tuple(args[1]) : NULL;
    PyObject *protected = rngs && args[2] != Py_None ? PySequence_Tuple(args[2]) : NULL;
    PyObject *result = NULL;
    if (!rngs || (args[2] != Py_None && !protected)) goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    if (PyTuple_GET_SIZE(rngs) != n || (protected && PyTuple_GET_SIZE(protected) != n)) {
        PyErr_SetString(PyExc_ValueError, "typo_tokens() takes one generator (and span list) per text");
        goto done;
    }
    job.kind = PyUnicode_InternFromString("keyboard");
    job.empty = PyUnicode_New(0, 0);
    result = job.kind && job.empty ? PyList_New(n) : NULL;
    for (Py_ssize_t index = 0; result && index < n; index++) {
        PyObject *text = PyTuple_GET_ITEM(texts, index), *rng = PyTuple_GET_ITEM(rngs, index);
        PyObject *spans = NULL, *noised = NULL;
        if (!PyUnicode_Check(text) || !PyObject_TypeCheck(rng, &TwisterType)) {
            PyErr_Format(PyExc_TypeError, "typo_tokens() takes texts (str) and Twister generators, got %.80s and %.80s",
                         Py_TYPE(text)->tp_name, Py_TYPE(rng)->tp_name);
        } else {
            int some = protected ? PyObject_IsTrue(PyTuple_GET_ITEM(protected, index)) : 0;
            if (some > 0) {
                spans = PySequence_Fast(PyTuple_GET_ITEM(protected, index), "protected spans are a sequence");
                if (spans) noised = typo_text(&job, text, (TwisterObject *)rng, spans);
            } else if (some == 0) {
                noised = typo_text(&job, text, (TwisterObject *)rng, NULL);
            }
        }
        Py_XDECREF(spans);
        if (!noised) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, index, noised);
    }
done:
    PyMem_Free(job.tokens);
    Py_XDECREF(job.kind);
    Py_XDECREF(job.empty);
    Py_XDECREF(texts);
    Py_XDECREF(rngs);
    Py_XDECREF(protected);
    return result;
}

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

/* Seeds the pending 4-word generators (1..LANES of them) and keeps their first words. */
static void seed_pending(TwisterObject *pending[LANES], Py_ssize_t count) {
    static uint32_t scratch[LANES][N]; /* the GIL is held: one user at a time */
    uint32_t keys[LANES][4];
    if (count == LANES) {
        for (int l = 0; l < LANES; l++) memcpy(keys[l], pending[l]->key, sizeof(keys[l]));
        seed_lanes(scratch, keys);
    } else {
        for (Py_ssize_t l = 0; l < count; l++) seed_one(scratch[l], pending[l]->key, 4);
    }
    for (Py_ssize_t l = 0; l < count; l++) first_words(scratch[l], pending[l]->words);
}

static PyObject *twisters(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "twisters() takes a list of bytes and optionally a Twister type");
        return NULL;
    }
    PyTypeObject *type = &TwisterType;
    if (nargs == 2) {
        if (!PyType_Check(args[1]) || !PyType_IsSubtype((PyTypeObject *)args[1], &TwisterType)) {
            PyErr_SetString(PyExc_TypeError, "twisters() takes Twister or a subclass of it as its type");
            return NULL;
        }
        type = (PyTypeObject *)args[1];
    }
    PyObject *keys = args[0];
    Py_ssize_t n = PyList_GET_SIZE(keys), pending_count = 0;
    PyObject *result = PyList_New(n);
    if (!result) return NULL;
    TwisterObject *pending[LANES];
    uint32_t key[MAX_KEY_WORDS];
    for (Py_ssize_t index = 0; index < n; index++) {
        /* allocating may run the collector, whose finalizers may change the list: read no item past its end */
        if (index >= PyList_GET_SIZE(keys)) {
            PyErr_SetString(PyExc_RuntimeError, "twisters(): the list of keys changed size");
            Py_DECREF(result);
            return NULL;
        }
        Py_ssize_t used = key_words(PyList_GET_ITEM(keys, index), key);
        TwisterObject *twister = used < 0 ? NULL : (TwisterObject *)type->tp_alloc(type, 0);
        if (twister && used != 4 && !(twister->mt = PyMem_Malloc(N * sizeof(uint32_t)))) {
            Py_DECREF(twister);
            twister = (TwisterObject *)PyErr_NoMemory();
        }
        if (!twister) {
            Py_DECREF(result); /* the pending generators are in it, unseeded: freed with it */
            return NULL;
        }
        /* a subclass made by a class statement is a GC type, but a generator of one that adds no fields (no
         * __dict__, no slots: SeededRng) refers to nothing that could close a cycle: untracked, the collector never
         * visits the batch's thousands of them. One with fields stays tracked, or a cycle through it would leak. */
        if (PyObject_IS_GC((PyObject *)twister) && type->tp_basicsize == TwisterType.tp_basicsize &&
            !type->tp_dictoffset) {
            PyObject_GC_UnTrack(twister);
        }
        PyList_SET_ITEM(result, index, (PyObject *)twister);
        if (used != 4) {
            seed_one(twister->mt, key, (size_t)used);
            twister->index = N; /* twist on the first draw, as CPython */
            continue;
        }
        memcpy(twister->key, key, sizeof(twister->key));
        pending[pending_count++] = twister;
        if (pending_count == LANES) {
            seed_pending(pending, LANES);
            pending_count = 0;
        }
    }
    if (pending_count) seed_pending(pending, pending_count);
    return result;
}

static PyMethodDef module_methods[] = {
    {"twisters", (PyCFunction)(void (*)(void))twisters, METH_FASTCALL,
     "twisters(keys: list[bytes], type=Twister) -> list: one generator (an instance of type) per big-endian seed, "
     "each drawing random.Random(int.from_bytes(key, 'big')).random()'s stream."},
    {"typo_tokens", (PyCFunction)(void (*)(void))typo_tokens, METH_FASTCALL,
     "typo_tokens(texts, rngs, protected, rate, memo, sites_of, Edit, Noised, defaults) -> list[Noised]: keyboard@2's "
     "NoiseQA token loop (noisecraft.noise_models.keyboard.typo_each_token) on Twister generators."},
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
    PyObject *module = PyModule_Create(&twister_module);
    if (!module) return NULL;
    Py_INCREF(&TwisterType);
    if (PyModule_AddObject(module, "Twister", (PyObject *)&TwisterType) < 0) {
        Py_DECREF(&TwisterType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
