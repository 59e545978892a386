/* noisecraft._counting: one row's word edit distance and BLEU n-gram matches against a memoised reference.
 *
 * What: Reference(text, tokenized) holds a reference's jiwer words (text as jiwer's wer_default splits it) and its
 * 13a tokens (tokenized: sacrebleu's 13a tokenization of the text, split on whitespace), each numbered from 1 by
 * first occurrence, and a table of the tokens' n-grams (n = 1..4) with their counts. Reference.counts(hyp, line,
 * acted, memo, tokenize_chunk) returns, for one hypothesis, (word edit distance, hypothesis tokens, clipped matches
 * of orders 1..4): what stats.py's pure-Python path computes with jiwer's word split, rapidfuzz's Levenshtein and
 * sacrebleu-style n-gram counting, from the same inputs, to the same integers.
 *
 * Why: with perturbed contexts (~140 tokens a row), splitting, numbering, cutting into n-grams and comparing in
 * Python was most of a build's CPU. Here each hypothesis is scanned once per view (words, 13a tokens), every word
 * and token is looked up in the reference's tables by its code points (no Python object per word), n-grams are
 * matched in a hash table (an n-gram absent from the reference ends the search for longer ones at that position),
 * and the word distance runs Myers' bit-parallel algorithm (Hyyrö's formulation, 64 reference words a machine
 * word) on what is left once the common prefix and suffix are stripped.
 *
 * The 13a tokenization of a hypothesis follows stats.py: a whitespace-separated chunk holding none of the
 * characters some 13a rule acts on is its own token; a chunk that only the first rule and a final '.' or ',' act on
 * (most punctuated words) is cut here; any other is looked up in memo (a dict the Python tokenizer shares) or
 * tokenized by tokenize_chunk(chunk). With acted None, line is already tokenized.
 * tests/test_stats.py checks this path against the pure-Python one and against jiwer and sacrebleu.
 *
 * tokenize_13a(line, acted, memo, tokenize_chunk) cuts a new reference's 13a tokens the same way (a new question was
 * a third of its cost tokenized in Python). edit_spans(log, fields, kinds) sums a row's edit log in one pass (changed
 * edits and their kinds, each field's spans: the bound of its character distance), and bounded_distance(a, b, bound)
 * finds that distance under the bound by a diagonal search; stats.py has the Python versions (and rapidfuzz).
 *
 * count_runs(text, flags) counts a text's words as the per-word noise models see them (runs of word characters and
 * marks) from a table of the Basic Multilingual Plane made from their regular expression: findall built a string
 * per word and tested each character against a class of hundreds of ranges (~0.2 ms a paragraph).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ORDERS 4
/* Word distances whose bit table would pass this many 64-bit words (8 MiB) are left to rapidfuzz (-1). */
#define MAX_PEQ_WORDS (1u << 20)

/* ---- a set of strings (runs of code points of one str), each numbered from 1 ---- */

typedef struct {
    Py_ssize_t start, len;
    uint64_t hash;
} Entry;

typedef struct {
    int kind;
    const void *data;  /* of the str the entries lie in (the Reference keeps it alive) */
    Entry *entries;    /* entries[id - 1] */
    uint32_t count, capacity;
    uint32_t *slots;   /* open addressing: 0 empty, else an id */
    size_t mask;
} Vocabulary;

static uint64_t run_hash(int kind, const void *data, Py_ssize_t start, Py_ssize_t len) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)len;
    for (Py_ssize_t i = 0; i < len; i++) {
        h = (h ^ PyUnicode_READ(kind, data, start + i)) * 1099511628211ULL;
    }
    return h ^ (h >> 31);
}

static int runs_equal(int kind1, const void *data1, Py_ssize_t start1, int kind2, const void *data2, Py_ssize_t start2,
                      Py_ssize_t len) {
    if (kind1 == kind2) {
        return memcmp((const char *)data1 + start1 * kind1, (const char *)data2 + start2 * kind2, (size_t)(len * kind1)) == 0;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        if (PyUnicode_READ(kind1, data1, start1 + i) != PyUnicode_READ(kind2, data2, start2 + i)) return 0;
    }
    return 1;
}

/* The id of a run of (kind, data), 0 when absent. */
static uint32_t vocabulary_find(const Vocabulary *v, int kind, const void *data, Py_ssize_t start, Py_ssize_t len,
                                uint64_t hash) {
    for (size_t slot = hash & v->mask;; slot = (slot + 1) & v->mask) {
        uint32_t id = v->slots[slot];
        if (!id) return 0;
        const Entry *e = &v->entries[id - 1];
        if (e->hash == hash && e->len == len && runs_equal(v->kind, v->data, e->start, kind, data, start, len)) return id;
    }
}

/* The id of a run of the vocabulary's own str, numbering it if new; 0 on a memory error. */
static uint32_t vocabulary_add(Vocabulary *v, Py_ssize_t start, Py_ssize_t len) {
    uint64_t hash = run_hash(v->kind, v->data, start, len);
    size_t slot = hash & v->mask;
    for (;; slot = (slot + 1) & v->mask) {
        uint32_t id = v->slots[slot];
        if (!id) break;
        const Entry *e = &v->entries[id - 1];
        if (e->hash == hash && e->len == len && runs_equal(v->kind, v->data, e->start, v->kind, v->data, start, len)) {
            return id;
        }
    }
    if (v->count == v->capacity) {
        uint32_t capacity = v->capacity ? 2 * v->capacity : 16;
        Entry *entries = PyMem_Realloc(v->entries, capacity * sizeof(Entry));
        if (!entries) {
            PyErr_NoMemory();
            return 0;
        }
        v->entries = entries;
        v->capacity = capacity;
    }
    v->entries[v->count] = (Entry){start, len, hash};
    v->slots[slot] = ++v->count;
    return v->count;
}

/* An empty vocabulary over str with room for at most `most` distinct runs (the table stays at most half full). */
static int vocabulary_init(Vocabulary *v, PyObject *str, Py_ssize_t most) {
    size_t size = 16;
    while (size < 2 * (size_t)most) size <<= 1;
    v->kind = PyUnicode_KIND(str);
    v->data = PyUnicode_DATA(str);
    v->entries = NULL;
    v->count = v->capacity = 0;
    v->slots = PyMem_Calloc(size, sizeof(uint32_t));
    v->mask = size - 1;
    if (!v->slots) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void vocabulary_free(Vocabulary *v) {
    PyMem_Free(v->entries);
    PyMem_Free(v->slots);
}

/* ---- growable arrays of ids ---- */

typedef struct {
    uint32_t *ids;
    Py_ssize_t len, capacity;
} Ids;

static int ids_push(Ids *a, uint32_t id) {
    if (a->len == a->capacity) {
        Py_ssize_t capacity = a->capacity ? 2 * a->capacity : 64;
        uint32_t *ids = PyMem_Realloc(a->ids, (size_t)capacity * sizeof(uint32_t));
        if (!ids) {
            PyErr_NoMemory();
            return -1;
        }
        a->ids = ids;
        a->capacity = capacity;
    }
    a->ids[a->len++] = id;
    return 0;
}

/* ---- splitting ---- */

/* str.split(): maximal runs of non-whitespace. Calls found(state, start, len) for each; stops on its -1. */
typedef int (*Found)(void *state, int kind, const void *data, Py_ssize_t start, Py_ssize_t len);

static int split_whitespace(int kind, const void *data, Py_ssize_t length, Found found, void *state) {
    Py_ssize_t i = 0;
    while (i < length) {
        while (i < length && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        Py_ssize_t start = i;
        while (i < length && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        if (i > start && found(state, kind, data, start, i - start) < 0) return -1;
    }
    return 0;
}

/* jiwer's wer_default words: runs of 2+ whitespace characters collapsed into one space, the text stripped, split on
 * " ", empty words dropped. So words are separated by one " " or by 2+ whitespace characters; a lone tab or newline
 * between two words belongs to the word. */
static int split_jiwer(int kind, const void *data, Py_ssize_t length, Found found, void *state) {
    Py_ssize_t lo = 0, hi = length;
    while (lo < hi && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, lo))) lo++;
    while (hi > lo && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, hi - 1))) hi--;
    Py_ssize_t word = lo, i = lo;
    while (i < hi) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!Py_UNICODE_ISSPACE(ch)) {
            i++;
            continue;
        }
        Py_ssize_t end = i + 1;
        while (end < hi && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end))) end++;
        if (end - i >= 2 || ch == ' ') {
            if (i > word && found(state, kind, data, word, i - word) < 0) return -1;
            word = end;
        }
        i = end;
    }
    if (hi > word && found(state, kind, data, word, hi - word) < 0) return -1;
    return 0;
}

/* ---- the reference ---- */

typedef struct {
    uint32_t ids[ORDERS]; /* token ids, 0 past the n-gram's order */
    uint32_t count, used; /* occurrences in the reference; matched so far in this hypothesis */
} Gram;

typedef struct {
    PyObject_HEAD
    PyObject *text, *tokenized;
    Vocabulary words, tokens;
    Ids word_ids;
    Py_ssize_t token_count;
    Gram *grams;
    uint32_t gram_count;
    uint32_t *gram_slots; /* 0 empty, else index + 1 into grams */
    size_t gram_mask;
    uint32_t *touched;    /* grams whose `used` this hypothesis raised, to reset */
} ReferenceObject;

static uint64_t gram_hash(const uint32_t *ids, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < n; k++) h = (h ^ ids[k]) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

/* The gram (ids[0..n)), or NULL. ids are all nonzero. */
static Gram *gram_find(const ReferenceObject *r, const uint32_t *ids, int n) {
    for (size_t slot = gram_hash(ids, n) & r->gram_mask;; slot = (slot + 1) & r->gram_mask) {
        uint32_t index = r->gram_slots[slot];
        if (!index) return NULL;
        Gram *g = &r->grams[index - 1];
        if ((n == ORDERS || !g->ids[n]) && memcmp(g->ids, ids, (size_t)n * sizeof(uint32_t)) == 0) return g;
    }
}

static void gram_add(ReferenceObject *r, const uint32_t *ids, int n) {
    size_t slot = gram_hash(ids, n) & r->gram_mask;
    for (;; slot = (slot + 1) & r->gram_mask) {
        uint32_t index = r->gram_slots[slot];
        if (!index) break;
        Gram *g = &r->grams[index - 1];
        if ((n == ORDERS || !g->ids[n]) && memcmp(g->ids, ids, (size_t)n * sizeof(uint32_t)) == 0) {
            g->count++;
            return;
        }
    }
    Gram *g = &r->grams[r->gram_count];
    memset(g, 0, sizeof(Gram));
    memcpy(g->ids, ids, (size_t)n * sizeof(uint32_t));
    g->count = 1;
    r->gram_slots[slot] = ++r->gram_count;
}

/* Splitting callbacks. Building a reference numbers runs of its own str; a hypothesis looks runs up (0: absent). */
typedef struct {
    Vocabulary *vocabulary;
    Ids *ids;
} Numbering;

static int number_run(void *state, int Py_UNUSED(kind), const void *Py_UNUSED(data), Py_ssize_t start,
                      Py_ssize_t len) {
    Numbering *n = state;
    uint32_t id = vocabulary_add(n->vocabulary, start, len);
    if (!id) return -1;
    return ids_push(n->ids, id);
}

static int look_up_run(void *state, int kind, const void *data, Py_ssize_t start, Py_ssize_t len) {
    Numbering *n = state;
    return ids_push(n->ids, vocabulary_find(n->vocabulary, kind, data, start, len, run_hash(kind, data, start, len)));
}

static int count_run(void *state, int Py_UNUSED(kind), const void *Py_UNUSED(data), Py_ssize_t Py_UNUSED(start),
                     Py_ssize_t Py_UNUSED(len)) {
    ++*(Py_ssize_t *)state;
    return 0;
}

typedef int (*Split)(int kind, const void *data, Py_ssize_t length, Found found, void *state);

/* Number the runs `split` finds in str into vocabulary and ids. */
static int number_all(PyObject *str, Split split, Vocabulary *vocabulary, Ids *ids) {
    int kind = PyUnicode_KIND(str);
    const void *data = PyUnicode_DATA(str);
    Py_ssize_t length = PyUnicode_GET_LENGTH(str), most = 0;
    split(kind, data, length, count_run, &most);
    if (vocabulary_init(vocabulary, str, most) < 0) return -1;
    Numbering numbering = {vocabulary, ids};
    return split(kind, data, length, number_run, &numbering);
}

static void Reference_dealloc(ReferenceObject *self) {
    Py_XDECREF(self->text);
    Py_XDECREF(self->tokenized);
    vocabulary_free(&self->words);
    vocabulary_free(&self->tokens);
    PyMem_Free(self->word_ids.ids);
    PyMem_Free(self->grams);
    PyMem_Free(self->gram_slots);
    PyMem_Free(self->touched);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Reference_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *text, *tokenized;
    static char *names[] = {"text", "tokenized", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UU:Reference", names, &text, &tokenized)) return NULL;
    ReferenceObject *self = (ReferenceObject *)type->tp_alloc(type, 0); /* zeroed */
    if (!self) return NULL;
    Py_INCREF(text);
    Py_INCREF(tokenized);
    self->text = text;
    self->tokenized = tokenized;
    Ids token_ids = {NULL, 0, 0};
    if (number_all(text, split_jiwer, &self->words, &self->word_ids) < 0 ||
        number_all(tokenized, split_whitespace, &self->tokens, &token_ids) < 0) {
        goto fail;
    }
    Py_ssize_t n = token_ids.len, most = ORDERS * n;
    size_t size = 16;
    while (size < 2 * (size_t)most) size <<= 1;
    self->token_count = n;
    self->grams = PyMem_Malloc((size_t)(most ? most : 1) * sizeof(Gram));
    self->touched = PyMem_Malloc((size_t)(most ? most : 1) * sizeof(uint32_t));
    self->gram_slots = PyMem_Calloc(size, sizeof(uint32_t));
    self->gram_mask = size - 1;
    if (!self->grams || !self->touched || !self->gram_slots) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        for (int order = 1; order <= ORDERS && i + order <= n; order++) gram_add(self, token_ids.ids + i, order);
    }
    PyMem_Free(token_ids.ids);
    return (PyObject *)self;
fail:
    PyMem_Free(token_ids.ids);
    Py_DECREF(self);
    return PyErr_Occurred() ? NULL : PyErr_NoMemory();
}

/* ---- one hypothesis ---- */

/* Levenshtein distance between a (ids >= 1) and b (ids >= 0; 0 equals nothing), both over ids <= alphabet: the
 * common prefix and suffix stripped, then Myers/Hyyrö bit vectors over a, one 64-bit block per 64 of its ids, the
 * horizontal deltas carried from block to block. -1: the bit table would be too large; -2: out of memory. */
static Py_ssize_t word_distance(const uint32_t *a, Py_ssize_t m, const uint32_t *b, Py_ssize_t n, uint32_t alphabet) {
    while (m && n && *a == *b) a++, b++, m--, n--;
    while (m && n && a[m - 1] == b[n - 1]) m--, n--;
    if (!m || !n) return m + n;
    Py_ssize_t blocks = (m + 63) / 64, rows = 1, distance = m;
    uint32_t *row_of = PyMem_Calloc((size_t)alphabet + 1, sizeof(uint32_t)); /* row 0: ids a lacks */
    if (!row_of) return -2;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!row_of[a[i]]) row_of[a[i]] = (uint32_t)rows++;
    }
    if ((size_t)rows * (size_t)blocks > MAX_PEQ_WORDS) {
        PyMem_Free(row_of);
        return -1;
    }
    uint64_t *peq = PyMem_Calloc((size_t)(rows * blocks + 2 * blocks), sizeof(uint64_t));
    if (!peq) {
        PyMem_Free(row_of);
        return -2;
    }
    uint64_t *vp = peq + rows * blocks, *vn = vp + blocks;
    for (Py_ssize_t i = 0; i < m; i++) peq[row_of[a[i]] * blocks + i / 64] |= 1ULL << (i % 64);
    for (Py_ssize_t w = 0; w < blocks; w++) vp[w] = ~0ULL;
    const uint64_t last = 1ULL << ((m - 1) % 64);
    for (Py_ssize_t j = 0; j < n; j++) {
        const uint64_t *eq = peq + row_of[b[j]] * blocks;
        uint64_t hp_carry = 1, hn_carry = 0; /* the top row D[0][j] = j grows by one a column */
        for (Py_ssize_t w = 0; w < blocks; w++) {
            uint64_t x = eq[w] | hn_carry, v_p = vp[w], v_n = vn[w];
            uint64_t d0 = (((x & v_p) + v_p) ^ v_p) | x | v_n;
            uint64_t hp = v_n | ~(d0 | v_p), hn = d0 & v_p;
            if (w == blocks - 1) distance += (hp & last) != 0, distance -= (hn & last) != 0;
            uint64_t hp_out = hp >> 63, hn_out = hn >> 63;
            hp = (hp << 1) | hp_carry;
            hn = (hn << 1) | hn_carry;
            hp_carry = hp_out;
            hn_carry = hn_out;
            vp[w] = hn | ~(d0 | hp);
            vn[w] = hp & d0;
        }
    }
    PyMem_Free(peq);
    PyMem_Free(row_of);
    return distance;
}

/* 13a chunks of a line: a chunk without a character some rule acts on is a token, a simple one is cut here
 * (emit_simple_chunk), others are tokenized through the memo (or tokenize_chunk) and their tokens emitted at once
 * (tokenize_chunk may clear the memo, and the memo's str may die with it). Each token goes to emit(emit_state, ...):
 * looked up in a reference's tables (a hypothesis) or copied out (tokenize_13a). */
typedef struct {
    Found emit;
    void *emit_state;
    PyObject *line, *memo, *tokenize_chunk;
    const char *acted; /* one per ASCII character: 0, or PADDED (13a's first rule), or another rule acts on it */
} Chunking;

#define PADDED 1

/* The tokens of a chunk that only 13a's first rule and a final '.' or ',' act on, emitted: 1 when it is one, 0 when
 * it is not (then it goes to the memo), -1 on an error. Such a chunk holds no entity ('&'), no "<skipped>" ('<'),
 * no '.' or ',' but one at its end, no '-' after an ASCII digit. The first rule puts spaces around each character of
 * its class (PADDED in acted), so each is a token and cuts the rest; a final '.' or ',' is cut off by the second
 * rule (after a non-digit) or the third (before the line's closing space); the fourth needs a digit before '-'. */
static int emit_simple_chunk(Chunking *c, int kind, const void *data, Py_ssize_t start, Py_ssize_t len) {
    Py_UCS4 last = PyUnicode_READ(kind, data, start + len - 1);
    Py_ssize_t end = len - (last == '.' || last == ',');
    for (Py_ssize_t i = 0; i < end; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, start + i);
        if (ch == '&' || ch == '<' || ch == '.' || ch == ',') return 0;
        if (ch == '-' && i) {
            Py_UCS4 before = PyUnicode_READ(kind, data, start + i - 1);
            if (before >= '0' && before <= '9') return 0;
        }
    }
    Py_ssize_t token = 0;
    for (Py_ssize_t i = 0; i < end; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, start + i);
        if (ch < 128 && c->acted[ch] == PADDED) {
            if (i > token && c->emit(c->emit_state, kind, data, start + token, i - token) < 0) return -1;
            if (c->emit(c->emit_state, kind, data, start + i, 1) < 0) return -1;
            token = i + 1;
        }
    }
    if (end > token && c->emit(c->emit_state, kind, data, start + token, end - token) < 0) return -1;
    if (end < len && c->emit(c->emit_state, kind, data, start + end, 1) < 0) return -1;
    return 1;
}

static int emit_chunk(void *state, int kind, const void *data, Py_ssize_t start, Py_ssize_t len) {
    Chunking *c = state;
    Py_ssize_t i = 0;
    for (; i < len; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, start + i);
        if (ch < 128 && c->acted[ch]) break;
    }
    if (i == len) return c->emit(c->emit_state, kind, data, start, len);
    int simple = emit_simple_chunk(c, kind, data, start, len);
    if (simple) return simple < 0 ? -1 : 0;
    PyObject *chunk = PyUnicode_Substring(c->line, start, start + len);
    if (!chunk) return -1;
    PyObject *tokenized = PyDict_GetItemWithError(c->memo, chunk);
    if (tokenized) {
        Py_INCREF(tokenized);
    } else if (!PyErr_Occurred()) {
        tokenized = PyObject_CallOneArg(c->tokenize_chunk, chunk);
    }
    Py_DECREF(chunk);
    if (!tokenized) return -1;
    int result = -1;
    if (!PyUnicode_Check(tokenized)) {
        PyErr_Format(PyExc_TypeError, "tokenize_chunk returned %.100s, not str", Py_TYPE(tokenized)->tp_name);
    } else {
        result = split_whitespace(PyUnicode_KIND(tokenized), PyUnicode_DATA(tokenized), PyUnicode_GET_LENGTH(tokenized),
                                  c->emit, c->emit_state);
    }
    Py_DECREF(tokenized);
    return result;
}

static PyObject *Reference_counts(ReferenceObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "counts(hyp, line, acted, memo, tokenize_chunk) takes 5 arguments");
        return NULL;
    }
    PyObject *hyp = args[0], *line = args[1], *acted = args[2], *memo = args[3], *tokenize_chunk = args[4];
    if (!PyUnicode_Check(hyp) || !PyUnicode_Check(line)) {
        PyErr_SetString(PyExc_TypeError, "counts: hyp and line must be str");
        return NULL;
    }
    if (acted != Py_None && (!PyBytes_Check(acted) || PyBytes_GET_SIZE(acted) != 128 || !PyDict_Check(memo) ||
                             !PyCallable_Check(tokenize_chunk))) {
        PyErr_SetString(PyExc_TypeError, "counts: acted must be None or 128 bytes, with a dict memo and a callable");
        return NULL;
    }
    PyObject *result = NULL;
    Ids words = {NULL, 0, 0}, tokens = {NULL, 0, 0};
    Numbering word_lookup = {&self->words, &words};
    if (split_jiwer(PyUnicode_KIND(hyp), PyUnicode_DATA(hyp), PyUnicode_GET_LENGTH(hyp), look_up_run, &word_lookup) < 0) {
        goto done;
    }
    int line_kind = PyUnicode_KIND(line);
    const void *line_data = PyUnicode_DATA(line);
    Py_ssize_t line_length = PyUnicode_GET_LENGTH(line);
    if (acted == Py_None) {
        Numbering token_lookup = {&self->tokens, &tokens};
        if (split_whitespace(line_kind, line_data, line_length, look_up_run, &token_lookup) < 0) goto done;
    } else {
        Numbering token_lookup = {&self->tokens, &tokens};
        Chunking chunking = {look_up_run, &token_lookup, line, memo, tokenize_chunk, PyBytes_AS_STRING(acted)};
        if (split_whitespace(line_kind, line_data, line_length, emit_chunk, &chunking) < 0) goto done;
    }
    Py_ssize_t distance = word_distance(self->word_ids.ids, self->word_ids.len, words.ids, words.len, self->words.count);
    if (distance == -2) {
        PyErr_NoMemory();
        goto done;
    }
    /* clipped matches: a hypothesis n-gram matches while the reference has occurrences left for it */
    Py_ssize_t matches[ORDERS] = {0};
    uint32_t touched = 0;
    const uint32_t *ids = tokens.ids;
    for (Py_ssize_t i = 0; i < tokens.len; i++) {
        for (int order = 1; order <= ORDERS && i + order <= tokens.len && ids[i + order - 1]; order++) {
            Gram *g = gram_find(self, ids + i, order);
            if (!g) break; /* no longer n-gram starting here is in the reference either */
            if (g->used < g->count) {
                if (!g->used) self->touched[touched++] = (uint32_t)(g - self->grams);
                g->used++;
                matches[order - 1]++;
            }
        }
    }
    for (uint32_t k = 0; k < touched; k++) self->grams[self->touched[k]].used = 0;
    result = Py_BuildValue("(nnnnnn)", distance, tokens.len, matches[0], matches[1], matches[2], matches[3]);
done:
    PyMem_Free(words.ids);
    PyMem_Free(tokens.ids);
    return result;
}

static PyMethodDef Reference_methods[] = {
    {"counts", (PyCFunction)(void (*)(void))Reference_counts, METH_FASTCALL,
     "counts(hyp, line, acted, memo, tokenize_chunk) -> (word distance or -1, hypothesis tokens, matches of orders "
     "1..4): hyp's jiwer words against the reference's (-1: too large for the bit table, use rapidfuzz), and the 13a "
     "tokens of line (acted None: line is tokenized; else 128 bytes, one per ASCII character: 0, 1 where 13a's first "
     "rule pads it, 2 where another rule acts on it; the chunk memo and the chunk tokenizer) as sacrebleu's clipped "
     "n-gram matches."},
    {NULL, NULL, 0, NULL},
};

static PyObject *Reference_words(ReferenceObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSsize_t(self->word_ids.len);
}

static PyObject *Reference_tokens(ReferenceObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSsize_t(self->token_count);
}

static PyGetSetDef Reference_getset[] = {
    {"words", (getter)Reference_words, NULL, "The reference's jiwer words.", NULL},
    {"tokens", (getter)Reference_tokens, NULL, "The reference's 13a tokens.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ReferenceType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "noisecraft._counting.Reference",
    .tp_basicsize = sizeof(ReferenceObject),
    .tp_dealloc = (destructor)Reference_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Reference(text, tokenized): a reference's jiwer words, 13a tokens and their n-gram counts.",
    .tp_methods = Reference_methods,
    .tp_getset = Reference_getset,
    .tp_new = Reference_new,
};

/* ---- 13a tokenization of a whole line ---- */

/* A growing line of code points: the tokens emitted, one space between two. */
typedef struct {
    Py_UCS4 *chars;
    Py_ssize_t len, capacity;
} Joined;

static int join_token(void *state, int kind, const void *data, Py_ssize_t start, Py_ssize_t len) {
    Joined *j = state;
    if (len > PY_SSIZE_T_MAX / 4 - 1 - j->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t need = j->len + 1 + len;
    if (need > j->capacity) {
        Py_ssize_t capacity = j->capacity ? j->capacity : 256;
        while (capacity < need) capacity = capacity > PY_SSIZE_T_MAX / 8 ? need : 2 * capacity;
        Py_UCS4 *chars = PyMem_Realloc(j->chars, (size_t)capacity * sizeof(Py_UCS4));
        if (!chars) {
            PyErr_NoMemory();
            return -1;
        }
        j->chars = chars;
        j->capacity = capacity;
    }
    if (j->len) j->chars[j->len++] = ' ';
    for (Py_ssize_t i = 0; i < len; i++) j->chars[j->len++] = PyUnicode_READ(kind, data, start + i);
    return 0;
}

/* tokenize_13a(line, acted, memo, tokenize_chunk): the 13a tokens of a line holding no newline, joined by one space,
 * cut chunk by chunk as Reference.counts cuts a hypothesis: what stats.py's Python tokenizer returns for it. */
static PyObject *tokenize_13a(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyUnicode_Check(args[0]) || !PyBytes_Check(args[1]) || PyBytes_GET_SIZE(args[1]) != 128 ||
        !PyDict_Check(args[2]) || !PyCallable_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "tokenize_13a(line: str, acted: 128 bytes, memo: dict, tokenize_chunk: callable)");
        return NULL;
    }
    PyObject *line = args[0];
    Joined joined = {NULL, 0, 0};
    Chunking chunking = {join_token, &joined, line, args[2], args[3], PyBytes_AS_STRING(args[1])};
    PyObject *result = NULL;
    if (split_whitespace(PyUnicode_KIND(line), PyUnicode_DATA(line), PyUnicode_GET_LENGTH(line), emit_chunk,
                         &chunking) == 0) {
        result = joined.len ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, joined.chars, joined.len)
                            : PyUnicode_New(0, 0);
    }
    PyMem_Free(joined.chars);
    return result;
}

/* ---- character distance under a bound ---- */

/* Past the first i code points, how many more of a (from i) and b (from i + k) agree, up to end. */
static Py_ssize_t slide(int ka, const void *a, int kb, const void *b, Py_ssize_t i, Py_ssize_t k, Py_ssize_t end) {
    if (ka == kb && ka == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *x = a, *y = (const Py_UCS1 *)b + k;
        while (i < end && x[i] == y[i]) i++;
    } else if (ka == kb && ka == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *x = a, *y = (const Py_UCS2 *)b + k;
        while (i < end && x[i] == y[i]) i++;
    } else {
        while (i < end && PyUnicode_READ(ka, a, i) == PyUnicode_READ(kb, b, i + k)) i++;
    }
    return i;
}

/* bounded_distance(a, b, bound): the Levenshtein distance between two strs if it is at most bound, else -1; -2 when
 * the bound is too large for this search to pay (past 64, and bound^2 past 4 times the texts' lengths): the
 * caller then asks rapidfuzz under the same bound. Ukkonen's and Landau-Vishkin's diagonal search: per distance d =
 * 0, 1, ..., on each diagonal k = j - i within d of the main one, the furthest row i that d edits reach (a
 * substitution along k, a deletion from k + 1, an insertion from k - 1, clipped to the texts, then extended along
 * k while the texts agree), until the last diagonal reaches the end of a. Near-equal texts (a few typos in a
 * paragraph) cost about their length plus bound^2 steps, without rapidfuzz's tables; the result is exact either way. */
static PyObject *bounded_distance(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1]) || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "bounded_distance(a: str, b: str, bound: int)");
        return NULL;
    }
    Py_ssize_t bound = PyLong_AsSsize_t(args[2]);
    if (bound == -1 && PyErr_Occurred()) return NULL;
    if (bound < 0) {
        PyErr_SetString(PyExc_ValueError, "bounded_distance: bound must be >= 0");
        return NULL;
    }
    int ka = PyUnicode_KIND(args[0]), kb = PyUnicode_KIND(args[1]);
    const char *a = PyUnicode_DATA(args[0]), *b = PyUnicode_DATA(args[1]);
    Py_ssize_t m = PyUnicode_GET_LENGTH(args[0]), n = PyUnicode_GET_LENGTH(args[1]);
    Py_ssize_t prefix = slide(ka, a, kb, b, 0, 0, m < n ? m : n);
    a += prefix * ka, b += prefix * kb, m -= prefix, n -= prefix;
    while (m && n && PyUnicode_READ(ka, a, m - 1) == PyUnicode_READ(kb, b, n - 1)) m--, n--;
    Py_ssize_t target = n - m; /* the diagonal of the last cell */
    if (target > bound || -target > bound) return PyLong_FromLong(-1);
    if (!m || !n) return PyLong_FromSsize_t(m + n);
    if (bound > (m > n ? m : n)) bound = m > n ? m : n; /* no distance is larger */
    if (bound > 64 && (double)bound * (double)bound > 4.0 * (double)(m + n)) return PyLong_FromLong(-2);
    /* furthest rows of distance d - 1 (previous) and d (current), diagonal k at index k + bound + 1; unreached: -m - n - 2
     * (plus one stays below every row) */
    Py_ssize_t width = 2 * bound + 3, unreached = -m - n - 2, distance = -1;
    Py_ssize_t *previous = PyMem_Malloc(2 * (size_t)width * sizeof(Py_ssize_t));
    if (!previous) return PyErr_NoMemory();
    Py_ssize_t *current = previous + width;
    for (Py_ssize_t x = 0; x < 2 * width; x++) previous[x] = unreached;
    previous += bound + 1, current += bound + 1; /* index by diagonal */
    previous[0] = slide(ka, a, kb, b, 0, 0, m < n ? m : n);
    for (Py_ssize_t d = 1; d <= bound && distance < 0; d++) {
        Py_ssize_t low = d < m ? -d : -m, high = d < n ? d : n;
        for (Py_ssize_t k = low; k <= high; k++) {
            Py_ssize_t i = previous[k] + 1, from_left = previous[k - 1], from_above = previous[k + 1] + 1;
            if (from_left > i) i = from_left;
            if (from_above > i) i = from_above;
            Py_ssize_t end = m < n - k ? m : n - k;
            if (i > end) i = end;
            current[k] = slide(ka, a, kb, b, i, k, end);
        }
        if (current[target] >= m) distance = d;
        Py_ssize_t *swap = previous;
        previous = current, current = swap;
    }
    PyMem_Free((previous < current ? previous : current) - (bound + 1));
    return PyLong_FromSsize_t(distance);
}

/* ---- a row's edit log ---- */

static PyObject *key_original, *key_replacement, *key_kind, *key_field; /* interned at import */

/* entry[key], a borrowed reference; NULL with KeyError or TypeError set. */
static PyObject *edit_item(PyObject *entry, PyObject *key) {
    if (!PyDict_Check(entry)) {
        PyErr_Format(PyExc_TypeError, "edit_spans: an edit must be a dict, not %.100s", Py_TYPE(entry)->tp_name);
        return NULL;
    }
    PyObject *value = PyDict_GetItemWithError(entry, key);
    if (!value && !PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
    return value;
}

/* kinds[kind] += times (from 0 where absent). */
static int count_into(PyObject *kinds, PyObject *kind, Py_ssize_t times) {
    PyObject *add = PyLong_FromSsize_t(times), *seen, *total;
    if (!add) return -1;
    if ((seen = PyDict_GetItemWithError(kinds, kind))) {
        Py_INCREF(seen);
        total = PyNumber_Add(seen, add);
        Py_DECREF(seen);
        Py_DECREF(add);
    } else {
        total = PyErr_Occurred() ? NULL : add;
        if (!total) Py_DECREF(add);
    }
    if (!total) return -1;
    int stored = PyDict_SetItem(kinds, kind, total);
    Py_DECREF(total);
    return stored;
}

/* A row's changing edits per kind object (one object per noise step, mostly), held and counted here and added to the
 * caller's dict once a row: a dict update per edit was a third of edit_spans. Kinds past the slots go straight in. */
#define KIND_SLOTS 8
typedef struct {
    PyObject *kind[KIND_SLOTS];
    Py_ssize_t times[KIND_SLOTS];
    int used;
} KindTally;

static int tally_kind(KindTally *t, PyObject *kinds, PyObject *kind) {
    for (int s = 0; s < t->used; s++) {
        if (t->kind[s] == kind) {
            t->times[s]++;
            return 0;
        }
    }
    if (t->used == KIND_SLOTS) return count_into(kinds, kind, 1);
    if (PyObject_Hash(kind) == -1) return -1; /* unhashable: fail now, as the dict would */
    Py_INCREF(kind);
    t->kind[t->used] = kind;
    t->times[t->used++] = 1;
    return 0;
}

/* One edit of edit_spans: its span added to its field's, and when it changes text, tallied with its kind. */
static int edit_counted(PyObject *original, PyObject *replacement, PyObject *kind, PyObject *field, PyObject *fields,
                        KindTally *tally, PyObject *kinds, Py_ssize_t *touched, Py_ssize_t *changed) {
    Py_ssize_t original_len = PyObject_Size(original), replacement_len = PyObject_Size(replacement);
    if (original_len < 0 || replacement_len < 0) return -1;
    Py_ssize_t span = original_len > replacement_len ? original_len : replacement_len;
    for (Py_ssize_t f = 0; f < PyTuple_GET_SIZE(fields); f++) { /* a tuple: comparing cannot change its size */
        int same = PyObject_RichCompareBool(field, PyTuple_GET_ITEM(fields, f), Py_EQ);
        if (same < 0) return -1;
        if (same) touched[f] += span;
    }
    int differs = PyObject_RichCompareBool(original, replacement, Py_NE);
    if (differs <= 0) return differs;
    ++*changed;
    return tally_kind(tally, kinds, kind);
}

/* edit_spans(log, fields, kinds): for one row's edit log (a list of dicts with "original", "replacement", "kind" and
 * "field"), the number of edits that change text, with each one's kind counted into the dict kinds, and per name of
 * the tuple fields the summed spans (max(len(original), len(replacement))) of the edits of that field. */
static PyObject *edit_spans(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "edit_spans(log: list, fields: tuple, kinds: dict)");
        return NULL;
    }
    PyObject *kinds = args[2], *result = NULL, *touched_list = NULL;
    PyObject *log = PySequence_Fast(args[0], "edit_spans: the edit log must be a sequence");
    if (!log) return NULL;
    /* a snapshot of the names (a list could be resized by an item's __eq__ while the spans are summed into
     * field_count slots); it holds them, so no comparison can free one */
    PyObject *fields = PySequence_Tuple(args[1]);
    if (!fields) {
        Py_DECREF(log);
        return NULL;
    }
    Py_ssize_t field_count = PyTuple_GET_SIZE(fields), changed = 0;
    KindTally tally = {.used = 0};
    Py_ssize_t *touched = PyMem_Calloc((size_t)(field_count ? field_count : 1), sizeof(Py_ssize_t));
    if (!touched) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t e = 0; e < PySequence_Fast_GET_SIZE(log); e++) {
        /* the edit's values, held: comparing or hashing them may run code that changes the entry or the log */
        PyObject *entry = PySequence_Fast_GET_ITEM(log, e), *item[4] = {NULL, NULL, NULL, NULL};
        PyObject *keys[4] = {key_original, key_replacement, key_kind, key_field};
        int ok = 1;
        Py_INCREF(entry);
        for (int k = 0; k < 4 && ok; k++) {
            ok = (item[k] = edit_item(entry, keys[k])) != NULL;
            Py_XINCREF(item[k]);
        }
        Py_DECREF(entry);
        ok = ok && edit_counted(item[0], item[1], item[2], item[3], fields, &tally, kinds, touched, &changed) == 0;
        for (int k = 0; k < 4; k++) Py_XDECREF(item[k]);
        if (!ok) goto done;
    }
    for (int t = 0; t < tally.used; t++) {
        if (count_into(kinds, tally.kind[t], tally.times[t]) < 0) goto done;
    }
    touched_list = PyList_New(field_count);
    if (!touched_list) goto done;
    for (Py_ssize_t f = 0; f < field_count; f++) {
        PyObject *sum = PyLong_FromSsize_t(touched[f]);
        if (!sum) goto done;
        PyList_SET_ITEM(touched_list, f, sum);
    }
    result = Py_BuildValue("(nO)", changed, touched_list);
done:
    for (int t = 0; t < tally.used; t++) Py_DECREF(tally.kind[t]);
    Py_XDECREF(touched_list);
    PyMem_Free(touched);
    Py_DECREF(fields);
    Py_DECREF(log);
    return result;
}

/* count_runs(text, flags): the maximal runs of characters flagged in flags (one byte per code point of the Basic
 * Multilingual Plane), as len(pattern.findall(text)) counts them for a one-character-class pattern `[...]+` whose
 * class the flags were made from; -1 if text has a character past U+FFFF (the caller uses the pattern). */
static PyObject *count_runs(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyBytes_Check(args[1]) || PyBytes_GET_SIZE(args[1]) != 0x10000) {
        PyErr_SetString(PyExc_TypeError, "count_runs(text: str, flags: bytes of 65536 flags)");
        return NULL;
    }
    PyObject *text = args[0];
    const char *flags = PyBytes_AS_STRING(args[1]);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), runs = 0;
    char inside = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch > 0xFFFF) return PyLong_FromLong(-1);
        char flagged = flags[ch] != 0;
        runs += flagged && !inside;
        inside = flagged;
    }
    return PyLong_FromSsize_t(runs);
}

static PyMethodDef module_methods[] = {
    {"bounded_distance", (PyCFunction)(void (*)(void))bounded_distance, METH_FASTCALL,
     "bounded_distance(a, b, bound) -> the Levenshtein distance of two strs if at most bound, else -1; -2 when the "
     "bound is too large for the diagonal search to pay (ask rapidfuzz)."},
    {"tokenize_13a", (PyCFunction)(void (*)(void))tokenize_13a, METH_FASTCALL,
     "tokenize_13a(line, acted, memo, tokenize_chunk) -> sacrebleu's 13a tokens of a line holding no newline, joined "
     "by one space, cut chunk by chunk with the arguments of Reference.counts."},
    {"edit_spans", (PyCFunction)(void (*)(void))edit_spans, METH_FASTCALL,
     "edit_spans(log, fields, kinds) -> (edits that change text, [summed spans of each field's edits]); the changing "
     "edits' kinds are counted into the dict kinds."},
    {"count_runs", (PyCFunction)(void (*)(void))count_runs, METH_FASTCALL,
     "count_runs(text, flags) -> the runs of characters flagged in flags (65536 bytes, one per BMP code point), or "
     "-1 when text has a character past U+FFFF."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef counting_module = {
    PyModuleDef_HEAD_INIT, "noisecraft._counting",
    "One row's word edit distance and BLEU n-gram matches against a memoised reference, and word counts (see "
    "stats.py).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__counting(void) {
    if (!(key_original = PyUnicode_InternFromString("original")) ||
        !(key_replacement = PyUnicode_InternFromString("replacement")) ||
        !(key_kind = PyUnicode_InternFromString("kind")) || !(key_field = PyUnicode_InternFromString("field"))) {
        return NULL;
    }
    if (PyType_Ready(&ReferenceType) < 0) return NULL;
    PyObject *module = PyModule_Create(&counting_module);
    if (!module) return NULL;
    Py_INCREF(&ReferenceType);
    if (PyModule_AddObject(module, "Reference", (PyObject *)&ReferenceType) < 0) {
        Py_DECREF(&ReferenceType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
