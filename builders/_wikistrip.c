/* noisecraft._wikistrip: the plain text of wikitext from mwparserfromhell's token list, in C.
 *
 * What: Walker(tokens, unsupported, entity, visible) holds mwparserfromhell's token classes (looked up by name in
 * the module `tokens`, mwparserfromhell.parser.tokens), the exception class raised for a stream the walk leaves to
 * the full parse (mining.wiki_markup.Unsupported), the HTMLEntity node class and is_visible. Walker.strip(token_list)
 * returns what mining/wiki_markup.py's Python `_Walk(token_list).top()` returns, or raises what it raises: the
 * same walk, branch for branch (a node per opening token, segments of a construct split at its separators, a
 * segment's `nonempty` and whether its raw text is plain, free and bracketed external links, arguments with and
 * without a default, tags and their names, `_collapsed`'s outer newlines off and runs of 3+ newlines to 2).
 *
 * Why: edit mining strips every changed paragraph; in Python the walk took about as long as mwparserfromhell's C
 * tokenizer (17-20 us each for a paragraph of ~400 characters, 23 tokens), here 3.3 us. A segment is a buffer of code
 * points: a node's stripped text is collapsed straight into its parent's buffer and only the final string becomes a
 * Python object. Entities (rare) are normalised by calling
 * back into mwparserfromhell's own HTMLEntity, and a tag's visibility by its is_visible, so those rules stay theirs.
 *
 * A Text token's text must be a str (the tokenizer's always is). tests/test_wikistrip_c.py checks this walk against
 * the Python one and against mwparserfromhell's full parse, on the shared dumps, generated markup and generated
 * token lists.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* The token classes the walk tells apart, by their names in mwparserfromhell.parser.tokens. */
#define TOKEN_CLASSES(X)                                                                                             \
    X(TEXT, "Text")                                                                                                  \
    X(TEMPLATE_OPEN, "TemplateOpen") X(TEMPLATE_PARAM_SEPARATOR, "TemplateParamSeparator")                           \
    X(TEMPLATE_PARAM_EQUALS, "TemplateParamEquals") X(TEMPLATE_CLOSE, "TemplateClose")                               \
    X(ARGUMENT_OPEN, "ArgumentOpen") X(ARGUMENT_SEPARATOR, "ArgumentSeparator") X(ARGUMENT_CLOSE, "ArgumentClose")   \
    X(WIKILINK_OPEN, "WikilinkOpen") X(WIKILINK_SEPARATOR, "WikilinkSeparator") X(WIKILINK_CLOSE, "WikilinkClose")   \
    X(EXTERNAL_LINK_OPEN, "ExternalLinkOpen") X(EXTERNAL_LINK_SEPARATOR, "ExternalLinkSeparator")                    \
    X(EXTERNAL_LINK_CLOSE, "ExternalLinkClose")                                                                      \
    X(HTML_ENTITY_START, "HTMLEntityStart") X(HTML_ENTITY_NUMERIC, "HTMLEntityNumeric")                              \
    X(HTML_ENTITY_HEX, "HTMLEntityHex")                                                                              \
    X(HEADING_START, "HeadingStart") X(HEADING_END, "HeadingEnd")                                                    \
    X(COMMENT_START, "CommentStart") X(COMMENT_END, "CommentEnd")                                                    \
    X(TAG_OPEN_OPEN, "TagOpenOpen") X(TAG_ATTR_START, "TagAttrStart") X(TAG_ATTR_EQUALS, "TagAttrEquals")            \
    X(TAG_ATTR_QUOTE, "TagAttrQuote") X(TAG_CLOSE_OPEN, "TagCloseOpen") X(TAG_CLOSE_SELFCLOSE, "TagCloseSelfclose")  \
    X(TAG_OPEN_CLOSE, "TagOpenClose") X(TAG_CLOSE_CLOSE, "TagCloseClose")

#define AS_ENUM(id, name) id,
#define AS_NAME(id, name) name,
enum { TOKEN_CLASSES(AS_ENUM) TOKEN_COUNT };
static const char *const token_names[TOKEN_COUNT] = {TOKEN_CLASSES(AS_NAME)};

/* interned in PyInit */
static PyObject *key_text, *key_brackets, *key_char, *key_normalize;

typedef struct {
    PyObject_HEAD
    PyObject *types[TOKEN_COUNT];
    PyObject *unsupported, *entity, *visible;
    PyObject *entity_keywords, *hex_entity_keywords; /* ("named", "hexadecimal"[, "hex_char"]) */
} WalkerObject;

/* ---- a segment: the nodes of one Wikicode being built ---- */

/* chars: the concatenation of its nodes' stripped texts (not yet collapsed); nonempty: its raw wikitext is not empty;
 * plain: every node so far is text, so chars is also its raw text (a tag's name is read from it). */
typedef struct {
    Py_UCS4 *chars;
    Py_ssize_t len, capacity;
    int nonempty, plain;
} Segment;

#define SEGMENT_INIT {NULL, 0, 0, 0, 1}

static int segment_reserve(Segment *s, Py_ssize_t more) {
    if (s->len + more <= s->capacity) return 0;
    Py_ssize_t capacity = s->capacity ? s->capacity : 64;
    while (capacity < s->len + more) capacity *= 2;
    Py_UCS4 *chars = PyMem_Realloc(s->chars, (size_t)capacity * sizeof(Py_UCS4));
    if (!chars) {
        PyErr_NoMemory();
        return -1;
    }
    s->chars = chars;
    s->capacity = capacity;
    return 0;
}

/* Start over (a separator began a new segment), keeping the buffer. */
static void segment_reset(Segment *s) {
    s->len = 0;
    s->nonempty = 0;
    s->plain = 1;
}

static void segment_free(Segment *s) {
    PyMem_Free(s->chars);
    s->chars = NULL;
    s->len = s->capacity = 0;
}

static int segment_append_str(Segment *s, PyObject *str) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(str);
    if (segment_reserve(s, n) < 0) return -1;
    if (n && !PyUnicode_AsUCS4(str, s->chars + s->len, n, 0)) return -1;
    s->len += n;
    return 0;
}

/* _collapsed(from): outer newlines off, each run of 3+ newlines cut to 2; written at dst (which may be from->chars
 * itself: the writing never passes the reading). Returns the length written. */
static Py_ssize_t collapse(const Segment *from, Py_UCS4 *dst) {
    Py_ssize_t lo = 0, hi = from->len, out = 0;
    const Py_UCS4 *src = from->chars;
    while (lo < hi && src[lo] == '\n') lo++;
    while (hi > lo && src[hi - 1] == '\n') hi--;
    for (Py_ssize_t i = lo; i < hi;) {
        if (src[i] != '\n') {
            dst[out++] = src[i++];
            continue;
        }
        Py_ssize_t run = i;
        while (i < hi && src[i] == '\n') i++;
        Py_ssize_t keep = i - run < 3 ? i - run : 2;
        for (Py_ssize_t k = 0; k < keep; k++) dst[out++] = '\n';
    }
    return out;
}

/* A node's stripped text (from's, collapsed) added to into, as `if stripped: into.parts.append(stripped)`. */
static int append_collapsed(Segment *into, const Segment *from) {
    if (!into || !from->len) return 0;
    if (segment_reserve(into, from->len) < 0) return -1;
    into->len += collapse(from, into->chars + into->len);
    return 0;
}

/* ---- the walk: the token list consumed from the front, one node at a time ---- */

typedef struct {
    WalkerObject *w;
    PyObject **items; /* of a tuple the walk holds */
    Py_ssize_t count, next;
} Walk;

#define IS(token, id) ((PyObject *)Py_TYPE(token) == walk->w->types[id])

static PyObject *pop(Walk *walk) {
    if (walk->next == walk->count) {
        PyErr_SetString(walk->w->unsupported, "a construct is missing its close token");
        return NULL;
    }
    return walk->items[walk->next++];
}

static int node(Walk *walk, PyObject *token, Segment *into);

/* The nodes up to a `close` token into last; at each `separator` (a token class id, or -1 for none) last starts over
 * and *separators counts it. */
static int until(Walk *walk, int close, int separator, Segment *last, Py_ssize_t *separators) {
    for (;;) {
        PyObject *token = pop(walk);
        if (!token) return -1;
        if (IS(token, close)) return 0;
        if (separator >= 0 && IS(token, separator)) {
            segment_reset(last);
            ++*separators;
        } else if (node(walk, token, last) < 0) {
            return -1;
        }
    }
}

static int template(Walk *walk, PyObject *Py_UNUSED(open), Segment *Py_UNUSED(into)) {
    int in_param = 0;
    for (;;) {
        PyObject *token = pop(walk);
        if (!token) return -1;
        if (IS(token, TEMPLATE_CLOSE)) return 0; /* a template strips to nothing */
        if (IS(token, TEMPLATE_PARAM_SEPARATOR)) {
            in_param = 1;
        } else if (IS(token, TEMPLATE_PARAM_EQUALS) && in_param) {
            continue;
        } else if (node(walk, token, NULL) < 0) {
            return -1;
        }
    }
}

static int argument(Walk *walk, PyObject *Py_UNUSED(open), Segment *into) {
    Segment last = SEGMENT_INIT;
    Py_ssize_t separators = 0;
    int result = until(walk, ARGUMENT_CLOSE, ARGUMENT_SEPARATOR, &last, &separators);
    if (!result && separators) result = append_collapsed(into, &last); /* the default; without one, nothing */
    segment_free(&last);
    return result;
}

static int wikilink(Walk *walk, PyObject *Py_UNUSED(open), Segment *into) {
    Segment last = SEGMENT_INIT; /* the title, or after a separator the text */
    Py_ssize_t separators = 0;
    int result = until(walk, WIKILINK_CLOSE, WIKILINK_SEPARATOR, &last, &separators);
    if (!result) result = append_collapsed(into, &last);
    segment_free(&last);
    return result;
}

static int external_link(Walk *walk, PyObject *open, Segment *into) {
    Segment last = SEGMENT_INIT;
    Py_ssize_t separators = 0;
    int result = until(walk, EXTERNAL_LINK_CLOSE, EXTERNAL_LINK_SEPARATOR, &last, &separators);
    if (result) goto done;
    PyObject *brackets = PyDict_GetItemWithError(open, key_brackets); /* borrowed; absent reads as None */
    int bracketed = brackets ? PyObject_IsTrue(brackets) : 0;
    if (bracketed < 0 || (!brackets && PyErr_Occurred())) {
        result = -1;
    } else if (!bracketed) {
        if (separators) {
            PyErr_SetString(walk->w->unsupported, "a free external link with a title");
            result = -1;
        } else {
            result = append_collapsed(into, &last); /* a free link is its URL */
        }
    } else if (separators && last.nonempty) {
        result = append_collapsed(into, &last); /* a bracketed link without a title shows nothing */
    }
done:
    segment_free(&last);
    return result;
}

/* token.<key> as the Token class reads it: the dict's value, None when absent. A new reference. */
static PyObject *token_get(PyObject *token, PyObject *key) {
    PyObject *value = PyDict_GetItemWithError(token, key);
    if (!value) {
        if (PyErr_Occurred()) return NULL;
        value = Py_None;
    }
    return Py_NewRef(value);
}

/* An entity: HTMLEntity(value, named=..., hexadecimal=...[, hex_char=...]).normalize(), in mwparserfromhell. */
static int entity(Walk *walk, PyObject *Py_UNUSED(start), Segment *into) {
    WalkerObject *w = walk->w;
    PyObject *args[4], *keywords, *token, *value_token;
    int hexadecimal = 0;
    if (!(token = pop(walk))) return -1;
    if (IS(token, HTML_ENTITY_NUMERIC)) {
        if (!(token = pop(walk))) return -1;
        if (IS(token, HTML_ENTITY_HEX)) {
            hexadecimal = 1;
            if (!(value_token = pop(walk)) || !pop(walk)) return -1;
        } else {
            value_token = token;
            if (!pop(walk)) return -1;
        }
        args[1] = Py_False;
    } else {
        value_token = token;
        if (!pop(walk)) return -1;
        args[1] = Py_True;
    }
    args[2] = hexadecimal ? Py_True : Py_False;
    keywords = w->entity_keywords;
    args[3] = NULL;
    if (hexadecimal) {
        if (!(args[3] = token_get(token, key_char))) return -1;
        keywords = w->hex_entity_keywords;
    }
    PyObject *node_object = NULL, *text = NULL;
    int result = -1;
    if (!(args[0] = token_get(value_token, key_text))) goto done;
    node_object = PyObject_Vectorcall(w->entity, args, 1, keywords);
    Py_DECREF(args[0]);
    if (!node_object) goto done;
    text = PyObject_CallMethodNoArgs(node_object, key_normalize);
    if (!text) goto done;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "HTMLEntity.normalize returned %.100s, not str", Py_TYPE(text)->tp_name);
        goto done;
    }
    result = into ? segment_append_str(into, text) : 0;
done:
    Py_XDECREF(args[3]);
    Py_XDECREF(node_object);
    Py_XDECREF(text);
    return result;
}

static int heading(Walk *walk, PyObject *Py_UNUSED(start), Segment *into) {
    Segment title = SEGMENT_INIT;
    Py_ssize_t separators = 0;
    int result = until(walk, HEADING_END, -1, &title, &separators);
    if (!result) result = append_collapsed(into, &title);
    segment_free(&title);
    return result;
}

static int comment(Walk *walk, PyObject *Py_UNUSED(start), Segment *Py_UNUSED(into)) {
    Segment body = SEGMENT_INIT;
    Py_ssize_t separators = 0;
    int result = until(walk, COMMENT_END, -1, &body, &separators);
    segment_free(&body);
    return result;
}

/* A tag attribute: consumed and dropped (attributes never show), up to the token that ends it (left for the tag). */
static int attribute(Walk *walk) {
    for (;;) {
        PyObject *token = pop(walk);
        if (!token) return -1;
        if (IS(token, TAG_ATTR_START) || IS(token, TAG_CLOSE_OPEN) || IS(token, TAG_CLOSE_SELFCLOSE)) {
            walk->next--;
            return 0;
        }
        if (!IS(token, TAG_ATTR_EQUALS) && !IS(token, TAG_ATTR_QUOTE) && node(walk, token, NULL) < 0) return -1;
    }
}

/* Move *from into *to (freeing what *to held) and start *from over, empty: `to, from = from, Segment()`. */
static void segment_move(Segment *to, Segment *from) {
    segment_free(to);
    *to = *from;
    *from = (Segment)SEGMENT_INIT;
}

static int tag(Walk *walk, PyObject *Py_UNUSED(open), Segment *into) {
    Segment segment = SEGMENT_INIT, name = SEGMENT_INIT, contents = SEGMENT_INIT;
    int has_name = 0, has_contents = 0, result = -1;
    for (;;) {
        PyObject *token = pop(walk);
        if (!token) goto done;
        if (IS(token, TAG_ATTR_START)) {
            if (attribute(walk) < 0) goto done;
        } else if (IS(token, TAG_CLOSE_OPEN)) {
            segment_move(&name, &segment);
            has_name = 1;
        } else if (IS(token, TAG_OPEN_CLOSE)) {
            segment_move(&contents, &segment);
            has_contents = 1;
        } else if (IS(token, TAG_CLOSE_SELFCLOSE)) {
            segment_move(&name, &segment);
            has_name = 1;
            break;
        } else if (IS(token, TAG_CLOSE_CLOSE)) {
            break;
        } else if (node(walk, token, &segment) < 0) {
            goto done;
        }
    }
    if (!has_name) {
        PyErr_SetString(walk->w->unsupported, "a tag closed before its name");
        goto done;
    }
    if (!has_contents || !contents.nonempty) {
        result = 0;
        goto done;
    }
    if (!name.plain) {
        PyErr_SetString(walk->w->unsupported, "a tag whose name is not plain text");
        goto done;
    }
    PyObject *raw = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, name.chars, name.len);
    if (!raw) goto done;
    PyObject *visible = PyObject_CallOneArg(walk->w->visible, raw);
    Py_DECREF(raw);
    if (!visible) goto done;
    int shown = PyObject_IsTrue(visible);
    Py_DECREF(visible);
    if (shown < 0) goto done;
    result = shown ? append_collapsed(into, &contents) : 0;
done:
    segment_free(&segment);
    segment_free(&name);
    segment_free(&contents);
    return result;
}

/* Consume the node that starts with token; add its stripped text (and raw facts) to into, if any. */
static int node(Walk *walk, PyObject *token, Segment *into) {
    if (IS(token, TEXT)) { /* most tokens */
        if (into) {
            PyObject *text = PyDict_GetItemWithError(token, key_text);
            if (!text || !PyUnicode_Check(text)) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a Text token's text is not a str");
                return -1;
            }
            if (PyUnicode_GET_LENGTH(text)) {
                if (segment_append_str(into, text) < 0) return -1;
                into->nonempty = 1;
            }
        }
        return 0;
    }
    int (*handler)(Walk *, PyObject *, Segment *);
    if (IS(token, TEMPLATE_OPEN)) handler = template;
    else if (IS(token, WIKILINK_OPEN)) handler = wikilink;
    else if (IS(token, TAG_OPEN_OPEN)) handler = tag;
    else if (IS(token, EXTERNAL_LINK_OPEN)) handler = external_link;
    else if (IS(token, HTML_ENTITY_START)) handler = entity;
    else if (IS(token, HEADING_START)) handler = heading;
    else if (IS(token, COMMENT_START)) handler = comment;
    else if (IS(token, ARGUMENT_OPEN)) handler = argument;
    else {
        PyObject *type_name = PyType_GetName(Py_TYPE(token));
        if (type_name) {
            PyErr_Format(walk->w->unsupported, "unexpected %U", type_name);
            Py_DECREF(type_name);
        }
        return -1;
    }
    if (Py_EnterRecursiveCall(" while walking wikitext tokens")) return -1;
    int result = handler(walk, token, into);
    Py_LeaveRecursiveCall();
    if (result < 0) return -1;
    if (into) {
        into->nonempty = 1; /* every other node renders with its delimiters: its raw text is never empty */
        into->plain = 0;
    }
    return 0;
}

/* ---- the Walker type ---- */

static PyObject *Walker_strip(WalkerObject *self, PyObject *token_list) {
    PyObject *items = PySequence_Tuple(token_list); /* a copy: callbacks cannot change what the walk reads */
    if (!items) return NULL;
    Walk walk = {self, &PyTuple_GET_ITEM(items, 0), PyTuple_GET_SIZE(items), 0};
    Segment top = SEGMENT_INIT;
    PyObject *result = NULL;
    while (walk.next < walk.count) {
        if (node(&walk, walk.items[walk.next++], &top) < 0) goto done;
    }
    Py_ssize_t length = top.len ? collapse(&top, top.chars) : 0;
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, top.chars, length);
done:
    segment_free(&top);
    Py_DECREF(items);
    return result;
}

static void Walker_dealloc(WalkerObject *self) {
    for (int i = 0; i < TOKEN_COUNT; i++) Py_XDECREF(self->types[i]);
    Py_XDECREF(self->unsupported);
    Py_XDECREF(self->entity);
    Py_XDECREF(self->visible);
    Py_XDECREF(self->entity_keywords);
    Py_XDECREF(self->hex_entity_keywords);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Walker_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"tokens", "unsupported", "entity", "visible", NULL};
    PyObject *tokens, *unsupported, *entity_class, *visible;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO:Walker", keywords, &tokens, &unsupported, &entity_class,
                                     &visible)) {
        return NULL;
    }
    if (!PyExceptionClass_Check(unsupported)) {
        PyErr_SetString(PyExc_TypeError, "Walker: unsupported must be an exception class");
        return NULL;
    }
    WalkerObject *self = (WalkerObject *)type->tp_alloc(type, 0); /* zeroed */
    if (!self) return NULL;
    for (int i = 0; i < TOKEN_COUNT; i++) {
        if (!(self->types[i] = PyObject_GetAttrString(tokens, token_names[i]))) goto fail;
        if (!PyType_Check(self->types[i]) || !PyType_IsSubtype((PyTypeObject *)self->types[i], &PyDict_Type)) {
            PyErr_Format(PyExc_TypeError, "Walker: tokens.%s is not a token class (a dict subclass)", token_names[i]);
            goto fail;
        }
    }
    self->unsupported = Py_NewRef(unsupported);
    self->entity = Py_NewRef(entity_class);
    self->visible = Py_NewRef(visible);
    if (!(self->entity_keywords = Py_BuildValue("(ss)", "named", "hexadecimal")) ||
        !(self->hex_entity_keywords = Py_BuildValue("(sss)", "named", "hexadecimal", "hex_char"))) {
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyMethodDef Walker_methods[] = {
    {"strip", (PyCFunction)Walker_strip, METH_O,
     "strip(token_list) -> str: the plain text of the wikitext mwparserfromhell's tokenizer gave token_list for, as "
     "strip_code(normalize=True, collapse=True) gives it; raises the unsupported class for a stream left to the "
     "full parse."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WalkerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "noisecraft._wikistrip.Walker",
    .tp_basicsize = sizeof(WalkerObject),
    .tp_dealloc = (destructor)Walker_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Walker(tokens, unsupported, entity, visible): mining.wiki_markup's token walk, with mwparserfromhell's "
              "token classes (the module tokens), the exception for streams left to the full parse, its HTMLEntity "
              "class and is_visible.",
    .tp_methods = Walker_methods,
    .tp_new = Walker_new,
};

static struct PyModuleDef wikistrip_module = {
    PyModuleDef_HEAD_INIT, "noisecraft._wikistrip",
    "The plain text of wikitext from mwparserfromhell's token list (see mining/wiki_markup.py).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__wikistrip(void) {
    if (!(key_text = PyUnicode_InternFromString("text")) || !(key_brackets = PyUnicode_InternFromString("brackets")) ||
        !(key_char = PyUnicode_InternFromString("char")) ||
        !(key_normalize = PyUnicode_InternFromString("normalize"))) {
        return NULL;
    }
    if (PyType_Ready(&WalkerType) < 0) return NULL;
    PyObject *module = PyModule_Create(&wikistrip_module);
    if (!module) return NULL;
    Py_INCREF(&WalkerType);
    if (PyModule_AddObject(module, "Walker", (PyObject *)&WalkerType) < 0) {
        Py_DECREF(&WalkerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
