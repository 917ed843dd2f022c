/*
 * accel._native: refimpl's mask walk (refimpl/masks/walk.py) in C.
 *
 *     walk(trie, lexer, parser, state, top, allowed) -> nodes walked
 *
 * The same function as walk.py's `walk` without its plans and regions (walk.py as it
 * runs when tracing: every node visited in preorder), step for step: the same calls of
 * `lexer.fill`, `lexer.loop`, `parser.advance` and `parser.restart` with the same
 * arguments (those that end on the recogniser's short path taken in C, with the same
 * effects: below), the same bits set in `allowed`, the same count returned. walk.py's
 * plans at nodes of many children leave out only nodes this visit refuses from known
 * table entries, and its start-state regions only nodes this visit decides without a
 * call, and count them, so the two agree on masks, counts and calls
 * (tests/accel/test_native.py). Read walk.py first; every block below names the lines of
 * walk.py (or recognizer.py) it implements.
 *
 * What it reads, through the buffer protocol (no copies):
 *     trie.byte   array('B')   trie.depth  array('H')
 *     trie.end    array('i')   trie.token  array('i')   (and trie.multi, trie.max_depth)
 *     trie.subtrees(): below, tokens, first array('i'), byte_set_words array('Q')
 *     lexer.table array('i')   table[state << 8 | byte], -1 while not computed
 *     lexer.ends  bytearray    bit 1: a greedy lexeme matches; bit 2: a lazy one does
 *     lexer.loop_of array('i'), lexer.escape_words array('Q')   a state's loop
 * and it writes `allowed` (a bytearray) directly. It calls back into Python only where
 * walk.py does: `lexer.fill(state, byte)` for a missing table entry, `lexer.loop(state)`
 * for a loop not computed yet,
 * `parser.restart(state, top)` the first time a lexeme ends in a state (per entry of the
 * (depth, top) stack), and `parser.advance(state, top, byte)` where a lexeme ends and the
 * next one may start with the byte — except where the parser's hook would take
 * recognizer.py's short path (a row pushed before for the same lexemes, placed again):
 * with a parser that offers `short_path()` (the Recognizer), the walk does those lines
 * itself, reading the rows and the lexer's accepting masks ("the parser's hooks, short"
 * below), and hands the counts back by `parser.short_path_taken(reused, ended)`. Where
 * the row is new and the parser's row build is this module's (below), it pushes the row
 * too ("a new row, pushed in C"), counting it back as built.
 *
 *     closure(tables, rows, j, seeds, transitive) -> (items, waiting, allowed, accepting) or None
 *
 * refimpl/recognition/earley.py's `closure` (an Earley row to its fixpoint) in C, the
 * same answer or None where it leaves the row to Python ("building an Earley row").
 *
 * Safety. The callbacks may grow lexer.table and lexer.ends (new lexer states), and
 * Python refuses to resize an array while a buffer view of it is held — so the two
 * lexer views are released before every callback and taken again after it (the pointers
 * may have moved). The trie's views and `allowed` are held for the whole walk: a
 * callback that tried to resize them gets a BufferError, which propagates. Every index
 * is bounds-checked against the current lengths, so a malformed trie, a lexer that
 * answers out-of-range states or a too-short `allowed` raises ValueError, IndexError or
 * TypeError; nothing reads or writes outside a buffer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>  /* T_OBJECT_EX, READONLY: a __slots__ field's member descriptor */

#include <stdint.h>
#include <string.h>

/* refimpl/recognition/lexer.py: DEAD, GREEDY_ENDS, LAZY_ENDS; refimpl/tokens/trie.py: NO_TOKEN, SEVERAL_TOKENS */
#define DEAD 0
#define GREEDY_ENDS 1
#define LAZY_ENDS 2
#define NO_TOKEN (-1)
#define SEVERAL_TOKENS (-2)
/* A lexer state s must have s << 8 | 255 within int32_t, like the table's entries. */
#define MAX_STATE (INT32_MAX >> 8)
/* Branch hints for the fast loop: its exits are rare. */
#if defined(__GNUC__)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNLIKELY(x) (x)
#endif
/* trie.depth is array('H'): no node is deeper than this. */
#define MAX_DEPTH 65535

/* ---- buffers --------------------------------------------------------------------- */

/* One array attribute seen through a buffer view: its owner, the view, its length. */
typedef struct {
    PyObject *owner;   /* a strong reference, taken once (walk.py's local aliases) */
    const char *name;  /* for error messages, e.g. "trie.end" */
    Py_buffer view;
    int held;          /* is `view` acquired? */
    Py_ssize_t len;    /* in items */
} Array;

/* Does the buffer's struct format describe one native `code`, of `itemsize` bytes? */
static int
format_is(const Py_buffer *view, char code, Py_ssize_t itemsize)
{
    const char *f = view->format ? view->format : "B";
    if (f[0] == '@')
        f++;
    return view->itemsize == itemsize && f[0] == code && f[1] == '\0';
}

/* Acquire a.view from a.owner: 1-dimensional, contiguous, of the expected item type. */
static int
array_acquire(Array *a, char code, Py_ssize_t itemsize, int writable)
{
    int flags = PyBUF_ND | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(a->owner, &a->view, flags) < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {  /* not a buffer at all: say which */
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a %scontiguous buffer of '%c' items, not %.100s",
                         a->name, writable ? "writable " : "", code, Py_TYPE(a->owner)->tp_name);
        }
        return -1;
    }
    a->held = 1;
    int ok = a->view.ndim <= 1;
    if (ok && !format_is(&a->view, code, itemsize)) {
        /* array('i') is 'i'; where long is 4 bytes, array('l') would do as well */
        ok = code == 'i' && format_is(&a->view, 'l', itemsize);
    }
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s must hold '%c' items (%zd bytes each), not format '%s'",
                     a->name, code, itemsize, a->view.format ? a->view.format : "B");
        return -1;
    }
    a->len = a->view.len / itemsize;
    return 0;
}

static void
array_release(Array *a)
{
    if (a->held) {
        PyBuffer_Release(&a->view);
        a->held = 0;
    }
    a->len = 0;
}

/* ---- the walk's state ------------------------------------------------------------ */

/* ---- restart()'s answers ------------------------------------------------------------ */

/* walk.py's `restarts`, a list of dicts (one per entry of the (depth, top) stack), kept
   as one open-addressing table keyed by (entry serial << 24 | s) + 1 (0 marks an empty
   slot; s <= MAX_STATE < 2^23). It is exact, never evicts: it answers the lookups the
   dicts answer, so restart() is called exactly when walk.py calls it. */
typedef struct {
    uint64_t *keys;
    int32_t *values;
    size_t cap, used;   /* cap: 0 or a power of two, at most half used */
} Memo;

static size_t
memo_slot(const Memo *m, uint64_t key)
{
    size_t i = (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (m->cap - 1);
    while (m->keys[i] != 0 && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* 1 and *value if the key is there, else 0. */
static int
memo_get(const Memo *m, uint64_t key, long *value)
{
    if (m->cap == 0)
        return 0;
    size_t i = memo_slot(m, key);
    if (m->keys[i] == 0)
        return 0;
    *value = m->values[i];
    return 1;
}

/* 0, or -1 with MemoryError. */
static int
memo_put(Memo *m, uint64_t key, long value)
{
    if (2 * (m->used + 1) > m->cap) {
        Memo grown = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
        grown.keys = PyMem_Calloc(grown.cap, sizeof *grown.keys);
        grown.values = PyMem_Calloc(grown.cap, sizeof *grown.values);
        if (grown.keys == NULL || grown.values == NULL) {
            PyMem_Free(grown.keys);
            PyMem_Free(grown.values);
            PyErr_NoMemory();
            return -1;
        }
        for (size_t j = 0; j < m->cap; j++) {
            if (m->keys[j] != 0) {
                size_t i = memo_slot(&grown, m->keys[j]);
                grown.keys[i] = m->keys[j];
                grown.values[i] = m->values[j];
                grown.used++;
            }
        }
        PyMem_Free(m->keys);
        PyMem_Free(m->values);
        *m = grown;
    }
    size_t i = memo_slot(m, key);
    if (m->keys[i] == 0)
        m->used++;
    m->keys[i] = key;
    m->values[i] = (int32_t)value;
    return 0;
}

typedef struct {
    /* walk.py: byte, end, depth, token = trie.byte, trie.end, trie.depth, trie.token */
    Array byte, depth, end, token;
    /* walk.py: table, fill, ends = lexer.table, lexer.fill, lexer.ends;
       loop_of, loop, escapes = lexer.loop_of, lexer.loop, lexer.escapes (as words) */
    Array table, ends, loop_of, escape_words;
    PyObject *fill, *loop;
    /* walk.py: below, byte_sets, _, subtree_tokens, first = trie.subtrees() (sets as words) */
    Array below, set_words, subtree_tokens, first;
    /* walk.py: advance, restart = parser.advance, parser.restart */
    PyObject *advance, *restart;
    PyObject *trie;    /* for trie.multi, looked up when first needed */
    PyObject *multi;
    Array allowed;
    /* walk.py: states = [0] * (trie.max_depth + 1) */
    int32_t *states;
    long max_depth;
    /* walk.py: scan_depths, scan_tops, last: the stack of (depth, parser top) entries;
       sp is the index of its newest entry (walk.py's [-1]) */
    int32_t *scan_depths;
    Py_ssize_t *scan_tops;
    Py_ssize_t sp;
    long last;
    /* walk.py: restarts, the third part of each entry: the entry's serial number (a
       popped entry's number is never given again) and one table of (serial, s) -> r */
    uint64_t *serials;
    uint64_t serial;
    Memo restarts;
    /* walk.py: n, size, skipped */
    Py_ssize_t n, size, skipped;
    /* The recogniser's short path (below, "The parser's hooks, short"): parser.short_path()'s
       parts, asked the first time a hook is called; short_known is 0 until then, then 1 if
       the parser has it and -1 if not (a stand-in parser, or a tracer listening). */
    PyObject *parser;  /* borrowed: the caller holds it for the call */
    int short_known;
    PyObject *rows, *greedy, *lazy, *skip_mask, *once_skip_mask, *hidden_mask;
    int skips, hidden;  /* skip_mask != 0, hidden_mask != 0 */
    /* what the short path did, handed back by parser.short_path_taken() at the end */
    Py_ssize_t short_reused, short_ended, short_built;
    /* The push path (below, "A new row, pushed in C"): parser.push_path()'s parts, asked
       the first time a row is missing; push_known as short_known. */
    int push_known;
    PyObject *push_parts;  /* the tuple: row_builder, tables, transitive, row class, rows limit, tree, starts,
                              start_after, without, SHARED_ITEMS, lexer.possible, lexer._starts */
    Py_ssize_t rows_limit;
} Walk;

static void
walk_free(Walk *w)
{
    array_release(&w->byte);
    array_release(&w->depth);
    array_release(&w->end);
    array_release(&w->token);
    array_release(&w->table);
    array_release(&w->ends);
    array_release(&w->loop_of);
    array_release(&w->escape_words);
    array_release(&w->below);
    array_release(&w->set_words);
    array_release(&w->subtree_tokens);
    array_release(&w->first);
    array_release(&w->allowed);
    Py_XDECREF(w->loop_of.owner);
    Py_XDECREF(w->escape_words.owner);
    Py_XDECREF(w->below.owner);
    Py_XDECREF(w->set_words.owner);
    Py_XDECREF(w->subtree_tokens.owner);
    Py_XDECREF(w->first.owner);
    Py_XDECREF(w->loop);
    Py_XDECREF(w->byte.owner);
    Py_XDECREF(w->depth.owner);
    Py_XDECREF(w->end.owner);
    Py_XDECREF(w->token.owner);
    Py_XDECREF(w->table.owner);
    Py_XDECREF(w->ends.owner);
    Py_XDECREF(w->allowed.owner);
    Py_XDECREF(w->fill);
    Py_XDECREF(w->advance);
    Py_XDECREF(w->restart);
    Py_XDECREF(w->multi);
    Py_XDECREF(w->rows);
    Py_XDECREF(w->greedy);
    Py_XDECREF(w->lazy);
    Py_XDECREF(w->skip_mask);
    Py_XDECREF(w->once_skip_mask);
    Py_XDECREF(w->hidden_mask);
    Py_XDECREF(w->push_parts);
    PyMem_Free(w->serials);  /* the block of the four per-depth arrays */
    PyMem_Free(w->restarts.keys);
    PyMem_Free(w->restarts.values);
}

/* The lexer's four views, taken again after a callback (it may have grown them). */
static int
lexer_acquire(Walk *w)
{
    if (array_acquire(&w->table, 'i', 4, 0) < 0 || array_acquire(&w->ends, 'B', 1, 0) < 0
        || array_acquire(&w->loop_of, 'i', 4, 0) < 0)
        return -1;
    return array_acquire(&w->escape_words, 'Q', 8, 0);
}

static void
lexer_release(Walk *w)
{
    array_release(&w->table);
    array_release(&w->ends);
    array_release(&w->loop_of);
    array_release(&w->escape_words);
}

/* A Python int that must be a lexer state: 0 <= s <= MAX_STATE. -1 with an exception if not. */
static long
as_state(PyObject *obj, const char *what)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int (a lexer state), not %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long s = PyLong_AsLongAndOverflow(obj, &overflow);
    if (s == -1 && PyErr_Occurred())
        return -1;
    if (overflow || s < 0 || s > MAX_STATE) {
        PyErr_Format(PyExc_ValueError, "%s is not a lexer state: %R", what, obj);
        return -1;
    }
    return s;
}

/* A Python int that must be a parser top (any Py_ssize_t; the parser checks it). */
static int
as_top(PyObject *obj, const char *what, Py_ssize_t *out)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int (a parser top), not %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t top = PyLong_AsSsize_t(obj);
    if (top == -1 && PyErr_Occurred())
        return -1;
    *out = top;
    return 0;
}

/* ---- the two callbacks ----------------------------------------------------------- */

/* walk.py: `t = fill(s, b)`. The new state, or -1 with an exception. */
static long
call_fill(Walk *w, long s, int b)
{
    lexer_release(w);
    PyObject *r = PyObject_CallFunction(w->fill, "li", s, b);
    long t = -1;
    if (r != NULL) {
        t = as_state(r, "lexer.fill()'s result");
        Py_DECREF(r);
    }
    if (t < 0)
        return -1;  /* the views stay released; walk_free does not mind */
    if (lexer_acquire(w) < 0)
        return -1;
    return t;
}

/* walk.py: `i = loop(s)`. The id of the state's escapes, or -1 with an exception. */
static long
call_loop(Walk *w, long s)
{
    lexer_release(w);
    PyObject *r = PyObject_CallFunction(w->loop, "l", s);
    if (r == NULL)
        return -1;
    long i = PyLong_Check(r) ? PyLong_AsLong(r) : -1;
    Py_DECREF(r);
    if (i < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "lexer.loop() must return an id (an int >= 0)");
        return -1;
    }
    if (lexer_acquire(w) < 0)
        return -1;
    return i;
}

/* A hook's answer, a pair (state, top): 0 and (*t, *top), or -1 with an exception.
   Takes the reference to `r` (NULL: the call raised). */
static int
as_pair(Walk *w, PyObject *r, const char *state_what, const char *top_what, long *t_out, Py_ssize_t *top_out)
{
    if (r == NULL)
        return -1;
    int ok = PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "the parser's hooks must return a pair (state, top), not %.100s",
                     Py_TYPE(r)->tp_name);
        Py_DECREF(r);
        return -1;
    }
    long t = as_state(PyTuple_GET_ITEM(r, 0), state_what);
    int err = t < 0 || as_top(PyTuple_GET_ITEM(r, 1), top_what, top_out) < 0;
    Py_DECREF(r);
    if (err)
        return -1;
    if (lexer_acquire(w) < 0)
        return -1;
    *t_out = t;
    return 0;
}

/* callable(a, b[, c]) on C longs, by vectorcall (no format string parsed, no argument
   tuple built: the hooks are called hundreds of times in some masks). A new reference,
   or NULL with an exception. */
static PyObject *
call_longs(PyObject *callable, long a, Py_ssize_t b, int c, int nargs)
{
    PyObject *args[3] = {PyLong_FromLong(a), PyLong_FromSsize_t(b), nargs > 2 ? PyLong_FromLong(c) : NULL};
    PyObject *r = NULL;
    if (args[0] != NULL && args[1] != NULL && (nargs < 3 || args[2] != NULL))
        r = PyObject_Vectorcall(callable, args, (size_t)nargs, NULL);
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    Py_XDECREF(args[2]);
    return r;
}

/* walk.py: `t, top = advance(s, scan_tops[-1], b)`. 0 and (*t, *top), or -1 with an exception. */
static int
call_advance(Walk *w, long s, Py_ssize_t top, int b, long *t_out, Py_ssize_t *top_out)
{
    lexer_release(w);
    return as_pair(w, call_longs(w->advance, s, top, b, 3),
                   "advance()'s state", "advance()'s top", t_out, top_out);
}

/* walk.py: `restart(s, scan_tops[-1])[0]`. The state, or -1 with an exception. */
static long
call_restart(Walk *w, long s, Py_ssize_t top)
{
    lexer_release(w);
    long r;
    Py_ssize_t unused;
    if (as_pair(w, call_longs(w->restart, s, top, 0, 2),
                "restart()'s state", "restart()'s top", &r, &unused) < 0)
        return -1;
    return r;
}

/* walk.py: `t = table[s << 8 | b]; if t < 0: t = fill(s, b)` (an index beyond the table
   is "not computed yet"). The state, or -1 with an exception. */
static long
next_state(Walk *w, long s, int b)
{
    const size_t index = (size_t)s << 8 | (size_t)b;
    long t = index < (size_t)w->table.len ? ((const int32_t *)w->table.view.buf)[index] : -1;
    return t < 0 ? call_fill(w, s, b) : t;
}

/* An attribute name as an interned str, made once per name: each call of the walk reads
   some twenty attributes (walk.py's local aliases), and PyObject_GetAttrString would make
   and hash a new str for each, every time (about 1 µs of a mask of 10 µs). The name's C
   literal is its key (compared by address; a literal never moves). NULL with MemoryError
   past NAMES names (more than this file uses). */
#define NAMES 64
static struct { const char *literal; PyObject *name; } names[NAMES];

static PyObject *
name_of(const char *literal)
{
    int i = 0;
    for (; i < NAMES && names[i].literal != NULL; i++)
        if (names[i].literal == literal)
            return names[i].name;
    if (i == NAMES) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject *name = PyUnicode_InternFromString(literal);
    if (name != NULL) {
        names[i].name = name;  /* kept for the life of the process */
        names[i].literal = literal;
    }
    return name;
}

/* obj.literal = value: 0, or -1 with an exception. */
static int
set_attr(PyObject *obj, const char *literal, PyObject *value)
{
    PyObject *name = name_of(literal);
    return name == NULL ? -1 : PyObject_SetAttr(obj, name, value);
}

/* obj.literal, a new reference (or NULL with an exception). */
static PyObject *
get_attr(PyObject *obj, const char *literal)
{
    PyObject *name = name_of(literal);
    return name == NULL ? NULL : PyObject_GetAttr(obj, name);
}

/* ---- the rows' fields ------------------------------------------------------------- */

/* earley.py's Row and recognizer.py's LexedRow keep their fields in __slots__. Reading
 * one with getattr walks the class's attribute lookup each time; the walk reads and
 * writes them as their member descriptors do (PyMember_GetOne / PyMember_SetOne for an
 * object slot: the pointer at the descriptor's offset), at offsets found once for the
 * class of the rows met last. A field that is not such a slot in that class (a property,
 * a __dict__ entry), an empty slot (getattr's AttributeError) and any other object are
 * read and written through getattr and setattr. */
enum { ROW_ITEMS, ROW_WAITING, ROW_ALLOWED, ROW_ACCEPTING, ROW_LEO, ROW_CHILDREN, ROW_LEXER_START, ROW_FIELDS };
static const char *const row_fields[ROW_FIELDS] = {"items", "waiting", "allowed", "accepting", "leo", "children",
                                                   "lexer_start"};
static struct {
    PyTypeObject *type;  /* a strong reference, kept until another class is met */
    Py_ssize_t offset[ROW_FIELDS];  /* -1: not an object slot of `type` */
} row_layout;

/* row_layout made `type`'s if it is not the class met last: 0, or -1 with an exception.
   (Its readers check row_layout.type again after it: releasing the class met before may
   run code that makes the layout another class's.) */
static int
row_learn(PyTypeObject *type)
{
    if (type == row_layout.type)
        return 0;
    Py_ssize_t offset[ROW_FIELDS];
    for (int f = 0; f < ROW_FIELDS; f++) {
        offset[f] = -1;
        PyObject *d = get_attr((PyObject *)type, row_fields[f]);  /* type.field: the descriptor itself */
        if (d == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return -1;
            PyErr_Clear();
            continue;
        }
        if (Py_IS_TYPE(d, &PyMemberDescr_Type) && PyType_IsSubtype(type, PyDescr_TYPE(d))) {
            const PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
            if (m->type == T_OBJECT_EX && !(m->flags & READONLY))
                offset[f] = m->offset;
        }
        Py_DECREF(d);
    }
    PyTypeObject *old = row_layout.type;  /* released once the new layout is whole */
    Py_INCREF(type);
    row_layout.type = type;
    memcpy(row_layout.offset, offset, sizeof offset);
    Py_XDECREF(old);
    return 0;
}

/* The slot of row.field, or NULL where the field is read through getattr/setattr (or
   with an exception, if learning the row's class failed). */
static PyObject **
row_slot(PyObject *row, int field)
{
    if (row_learn(Py_TYPE(row)) < 0 || Py_TYPE(row) != row_layout.type || row_layout.offset[field] < 0)
        return NULL;
    return (PyObject **)((char *)row + row_layout.offset[field]);
}

/* row.field, a new reference (or NULL with an exception). */
static PyObject *
row_get(PyObject *row, int field)
{
    PyObject **slot = row_slot(row, field);
    if (slot != NULL && *slot != NULL) {
        Py_INCREF(*slot);
        return *slot;
    }
    return PyErr_Occurred() ? NULL : get_attr(row, row_fields[field]);  /* or its AttributeError */
}

/* row.field = value: 0, or -1 with an exception. */
static int
row_set(PyObject *row, int field, PyObject *value)
{
    PyObject **slot = row_slot(row, field);
    if (slot == NULL)
        return PyErr_Occurred() ? -1 : set_attr(row, row_fields[field], value);
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
    return 0;
}

/* ---- building an Earley row -------------------------------------------------------- */

/* refimpl/recognition/earley.py, `closure(tables, rows, j, seeds, transitive)`: row j run
 * to the fixpoint of predict and complete, the same items in the same order, the same
 * waiting lists, allowed mask and accepting flag. Read earley.py's `closure` first: each
 * block below quotes the lines it mirrors. What it leaves to Python, by answering None
 * (the parser then calls `closure` itself, which gives the answer or the error): tables
 * or rows not of the types refimpl makes (lists, dicts, exact ints), items beyond 62
 * bits, a row past the `items_per_row` limit (Python raises LimitError). It calls back
 * into Python only for `transitive(k, symbol)`, Leo's transitive items (on the push
 * path, only where the row's memo `leo` does not hold it yet), and for int.from_bytes
 * when a row allows lexemes past the 64th. */

#define NOT_HANDLED 1  /* an answer left to Python's `closure` */

/* The items of the row, in order, and the set `seen` of them (open addressing). */
typedef struct {
    int64_t *items;
    Py_ssize_t len, cap;
    int64_t *slots;  /* -1: empty */
    size_t mask;     /* slots - 1, a power of two minus one */
} Items;

static size_t
item_hash(int64_t x)
{
    return (size_t)(((uint64_t)x * 0x9E3779B97F4A7C15ull) >> 17);
}

/* `x in seen` */
static int
items_has(const Items *s, int64_t x)
{
    for (size_t i = item_hash(x) & s->mask;; i = (i + 1) & s->mask) {
        if (s->slots[i] == x)
            return 1;
        if (s->slots[i] < 0)
            return 0;
    }
}

/* `if x not in seen: seen.add(x); items.append(x)`. 0, or -1 with MemoryError. */
static int
items_add(Items *s, int64_t x)
{
    size_t i = item_hash(x) & s->mask;
    for (;; i = (i + 1) & s->mask) {
        if (s->slots[i] == x)
            return 0;
        if (s->slots[i] < 0)
            break;
    }
    if (s->len == s->cap) {
        Py_ssize_t cap = s->cap * 2;
        int64_t *more = PyMem_Realloc(s->items, (size_t)cap * sizeof *more);
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->items = more;
        s->cap = cap;
    }
    s->items[s->len++] = x;
    s->slots[i] = x;
    if ((size_t)s->len * 2 > s->mask) {  /* keep the table at most half full */
        size_t size = (s->mask + 1) * 4;
        int64_t *slots = PyMem_Malloc(size * sizeof *slots);
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memset(slots, 0xff, size * sizeof *slots);
        PyMem_Free(s->slots);
        s->slots = slots;
        s->mask = size - 1;
        for (Py_ssize_t k = 0; k < s->len; k++) {
            size_t h = item_hash(s->items[k]) & s->mask;
            while (s->slots[h] >= 0)
                h = (h + 1) & s->mask;
            s->slots[h] = s->items[k];
        }
    }
    return 0;
}

/* An exact int in 0..max as a C value: 0 and *out, NOT_HANDLED otherwise (or -1 with an
   exception). */
static int
small_int(PyObject *x, int64_t max, int64_t *out)
{
    if (!PyLong_CheckExact(x))
        return NOT_HANDLED;
    int overflow;
    const long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < 0 || v > max)
        return NOT_HANDLED;
    *out = v;
    return 0;
}

/* list[i] as an int in lo..max (lo is 0 or COMPLETE, -1): 0 and *out, NOT_HANDLED, or -1. */
static int
list_int(PyObject *list, int64_t i, int64_t lo, int64_t max, int64_t *out)
{
    if (i < 0 || i >= PyList_GET_SIZE(list))
        return NOT_HANDLED;
    PyObject *x = PyList_GET_ITEM(list, (Py_ssize_t)i);
    if (!PyLong_CheckExact(x))
        return NOT_HANDLED;
    int overflow;
    const long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < lo || v > max)
        return NOT_HANDLED;
    *out = v;
    return 0;
}

#define ITEM_MAX (((int64_t)1 << 62) - 1)
#define COMPLETE (-1)  /* refimpl/grammar/ir.py */

/* The fixpoint, into *s and the lexeme bits `lexemes` (grown as needed). 0, NOT_HANDLED,
   or -1 with an exception. */
static int
closure_run(PyObject *dot_symbol, PyObject *lhs, PyObject *rules_of, PyObject *nullable, int64_t n,
            int64_t shift, int64_t mask, Py_ssize_t limit, PyObject *rows, int64_t j, PyObject *transitive,
            int leo_memo, Items *s, uint8_t *predicted, uint64_t **lexemes, Py_ssize_t *lexeme_words)
{
    /* origin_j = j << shift */
    const int64_t origin_j = j << shift;
    /* for item in items: (the worklist read while it grows) */
    for (Py_ssize_t i = 0; i < s->len; i++) {
        const int64_t item = s->items[i];
        /* pos = item & mask; sym = dot_symbol[pos] */
        const int64_t pos = item & mask;
        int64_t sym;
        int r = list_int(dot_symbol, pos, COMPLETE, ITEM_MAX, &sym);
        if (r != 0)
            return r;
        if (sym == COMPLETE) {
            /* origin = item >> shift; if origin == j: continue */
            const int64_t origin = item >> shift;
            if (origin == j)
                continue;
            /* symbol = lhs[pos] */
            int64_t symbol;
            if ((r = list_int(lhs, pos, 0, ITEM_MAX, &symbol)) != 0)
                return r;
            /* top = transitive(origin, symbol) if transitive is not None else None */
            int64_t top = -1;
            int memo = 0;  /* 1: the transitive item read from rows[origin].leo, 2: None read there */
            if (leo_memo && transitive != Py_None && origin >= 0 && origin < PyList_GET_SIZE(rows)) {
                /* Parser._transitive(k, symbol), its memo (`leo_memo`: `transitive` is the
                   parser's, over these rows):
                       row = self.rows[k]
                       if symbol in row.leo: top = row.leo[symbol]; break   (returned) */
                PyObject *leo = row_get(PyList_GET_ITEM(rows, (Py_ssize_t)origin), ROW_LEO);
                if (leo == NULL)
                    return -1;
                if (PyDict_CheckExact(leo)) {
                    PyObject *key = PyLong_FromLongLong(symbol);
                    PyObject *t = key == NULL ? NULL : PyDict_GetItemWithError(leo, key);  /* borrowed */
                    Py_XDECREF(key);
                    if (t == NULL && (key == NULL || PyErr_Occurred())) {
                        Py_DECREF(leo);
                        return -1;
                    }
                    if (t == Py_None)
                        memo = 2;
                    else if (t != NULL && small_int(t, ITEM_MAX, &top) == 0)
                        memo = 1;
                    else if (PyErr_Occurred()) {
                        Py_DECREF(leo);
                        return -1;
                    }
                }
                Py_DECREF(leo);
            }
            if (transitive != Py_None && !memo) {
                PyObject *args[2] = {PyLong_FromLongLong(origin), PyLong_FromLongLong(symbol)};
                PyObject *t = NULL;
                if (args[0] != NULL && args[1] != NULL)
                    t = PyObject_Vectorcall(transitive, args, 2, NULL);
                Py_XDECREF(args[0]);
                Py_XDECREF(args[1]);
                if (t == NULL)
                    return -1;
                if (t != Py_None) {
                    r = small_int(t, ITEM_MAX, &top);
                    Py_DECREF(t);
                    if (r != 0)
                        return r;
                } else {
                    Py_DECREF(t);
                }
            }
            if (top >= 0) {
                /* if top not in seen: seen.add(top); items.append(top) */
                if (items_add(s, top) < 0)
                    return -1;
            } else {
                /* for w in rows[origin].waiting.get(symbol, ()): w += 1 ... (added if not seen) */
                if (origin < 0 || origin >= PyList_GET_SIZE(rows))
                    return NOT_HANDLED;
                PyObject *waiting = row_get(PyList_GET_ITEM(rows, (Py_ssize_t)origin), ROW_WAITING);
                if (waiting == NULL)
                    return -1;
                if (!PyDict_CheckExact(waiting)) {
                    Py_DECREF(waiting);
                    return NOT_HANDLED;
                }
                PyObject *key = PyLong_FromLongLong(symbol);
                PyObject *ws = key == NULL ? NULL : PyDict_GetItemWithError(waiting, key);  /* borrowed */
                Py_XDECREF(key);
                if (ws == NULL && PyErr_Occurred()) {
                    Py_DECREF(waiting);
                    return -1;
                }
                if (ws != NULL && !PyList_CheckExact(ws)) {
                    Py_DECREF(waiting);
                    return NOT_HANDLED;
                }
                Py_ssize_t k = ws == NULL ? 0 : PyList_GET_SIZE(ws);
                for (Py_ssize_t m = 0; m < k; m++) {
                    int64_t w;
                    r = small_int(PyList_GET_ITEM(ws, m), ITEM_MAX - 1, &w);
                    if (r == 0 && items_add(s, w + 1) < 0)
                        r = -1;
                    if (r != 0) {
                        Py_DECREF(waiting);
                        return r;
                    }
                }
                Py_DECREF(waiting);
            }
        } else {
            /* (the waiting lists are made after the loop, in the same item order) */
            if (sym >= n) {
                /* allowed |= 1 << (sym - n); continue */
                const int64_t bit = sym - n;
                if (bit / 64 >= *lexeme_words) {
                    Py_ssize_t words = (Py_ssize_t)(bit / 64 + 1);
                    uint64_t *more = PyMem_Realloc(*lexemes, (size_t)words * sizeof *more);
                    if (more == NULL) {
                        PyErr_NoMemory();
                        return -1;
                    }
                    memset(more + *lexeme_words, 0, (size_t)(words - *lexeme_words) * sizeof *more);
                    *lexemes = more;
                    *lexeme_words = words;
                }
                (*lexemes)[bit / 64] |= (uint64_t)1 << (bit % 64);
                continue;
            }
            /* if sym not in predicted: predicted.add(sym); for p in rules_of[sym]: p |= origin_j ... */
            if (!predicted[sym]) {
                predicted[sym] = 1;
                if (sym >= PyList_GET_SIZE(rules_of))
                    return NOT_HANDLED;
                PyObject *ps = PyList_GET_ITEM(rules_of, (Py_ssize_t)sym);
                if (!PyList_CheckExact(ps))
                    return NOT_HANDLED;
                for (Py_ssize_t m = 0; m < PyList_GET_SIZE(ps); m++) {
                    int64_t p;
                    if ((r = list_int(ps, m, 0, mask, &p)) != 0)
                        return r;
                    if (items_add(s, p | origin_j) < 0)
                        return -1;
                }
            }
            /* if nullable[sym] and item + 1 not in seen: seen.add(item + 1); items.append(item + 1) */
            if (sym >= PyList_GET_SIZE(nullable))
                return NOT_HANDLED;
            PyObject *null = PyList_GET_ITEM(nullable, (Py_ssize_t)sym);
            if (null != Py_True && null != Py_False)
                return NOT_HANDLED;
            if (null == Py_True && items_add(s, item + 1) < 0)
                return -1;
        }
        /* if len(items) > limit: raise LimitError(...)   (Python's to raise) */
        if (s->len > limit)
            return NOT_HANDLED;
    }
    return 0;
}

/* The answer: (items, waiting, allowed, accepting) from the fixpoint's items and lexeme
   bits, or NULL with an exception. */
static PyObject *
closure_answer(const Items *s, PyObject *dot_symbol, int64_t mask, int64_t accept_item,
               const uint64_t *lexemes, Py_ssize_t lexeme_words)
{
    PyObject *items = PyList_New(s->len), *waiting = PyDict_New(), *allowed = NULL;
    if (items == NULL || waiting == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < s->len; i++) {
        PyObject *x = PyLong_FromLongLong(s->items[i]);
        if (x == NULL)
            goto fail;
        PyList_SET_ITEM(items, i, x);
        /* if sym in waiting: waiting[sym].append(item) else: waiting[sym] = [item]
           (for every item whose dot is not at the end, in order) */
        PyObject *sym = PyList_GET_ITEM(dot_symbol, (Py_ssize_t)(s->items[i] & mask));  /* checked in the run */
        if (PyLong_AsLong(sym) == COMPLETE)
            continue;
        PyObject *list = PyDict_GetItemWithError(waiting, sym);
        if (list == NULL) {
            if (PyErr_Occurred() || (list = PyList_New(0)) == NULL)
                goto fail;
            const int err = PyDict_SetItem(waiting, sym, list);
            Py_DECREF(list);  /* the dict holds it */
            if (err < 0)
                goto fail;
        }
        if (PyList_Append(list, x) < 0)
            goto fail;
    }
    /* allowed: the lexeme bits as an int */
    Py_ssize_t words = lexeme_words;
    while (words > 0 && lexemes[words - 1] == 0)
        words--;
    if (words <= 1) {
        allowed = PyLong_FromUnsignedLongLong(words ? lexemes[0] : 0);
    } else {
        unsigned char *bytes = PyMem_Malloc((size_t)words * 8);
        if (bytes == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t w = 0; w < words; w++)
            for (int b = 0; b < 8; b++)
                bytes[w * 8 + b] = (unsigned char)(lexemes[w] >> (8 * b));
        PyObject *data = PyBytes_FromStringAndSize((const char *)bytes, words * 8);
        PyMem_Free(bytes);
        if (data != NULL)
            allowed = PyObject_CallMethod((PyObject *)&PyLong_Type, "from_bytes", "Os", data, "little");
        Py_XDECREF(data);
    }
    if (allowed == NULL)
        goto fail;
    /* accept_item in seen */
    PyObject *accepting = items_has(s, accept_item) ? Py_True : Py_False;
    PyObject *answer = PyTuple_New(4);
    if (answer == NULL)
        goto fail;
    Py_INCREF(accepting);
    PyTuple_SET_ITEM(answer, 0, items);
    PyTuple_SET_ITEM(answer, 1, waiting);
    PyTuple_SET_ITEM(answer, 2, allowed);
    PyTuple_SET_ITEM(answer, 3, accepting);
    return answer;
fail:
    Py_XDECREF(items);
    Py_XDECREF(waiting);
    Py_XDECREF(allowed);
    return NULL;
}

/* earley.py's `closure(tables, rows, j, seeds, transitive)`, the seeds given as C ints: its
   answer, None where it leaves the row to Python, or NULL with an exception. `leo_memo`: `transitive` is known
   to be the parser's `_transitive` over these `rows` (the push path's), whose memo in
   rows[k].leo is then read here before calling it. */
static PyObject *
closure_of(PyObject *tables, PyObject *rows, PyObject *j_obj, const int64_t *seeds, Py_ssize_t n_seeds,
           PyObject *transitive, int leo_memo)
{
    /* dot_symbol, lhs, rules_of, nullable, n, shift, mask, limit, accept_item = tables */
    if (!PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 9 || !PyList_CheckExact(rows))
        Py_RETURN_NONE;
    PyObject *dot_symbol = PyTuple_GET_ITEM(tables, 0), *lhs = PyTuple_GET_ITEM(tables, 1);
    PyObject *rules_of = PyTuple_GET_ITEM(tables, 2), *nullable = PyTuple_GET_ITEM(tables, 3);
    if (!PyList_CheckExact(dot_symbol) || !PyList_CheckExact(lhs) || !PyList_CheckExact(rules_of)
        || !PyList_CheckExact(nullable))
        Py_RETURN_NONE;
    int64_t v[6];  /* n, shift, mask, limit, accept_item, j */
    for (int i = 0; i < 6; i++) {
        const int r = small_int(i < 5 ? PyTuple_GET_ITEM(tables, 4 + i) : j_obj, ITEM_MAX, &v[i]);
        if (r < 0)
            return NULL;
        if (r)
            Py_RETURN_NONE;
    }
    const int64_t n = v[0], shift = v[1], mask = v[2], limit = v[3], accept_item = v[4], j = v[5];
    if (shift > 40 || j >= ((int64_t)1 << (61 - shift)) || n > PyList_GET_SIZE(rules_of) || mask != ((int64_t)1 << shift) - 1)
        Py_RETURN_NONE;
    Items s = {NULL, 0, 16, NULL, 63};
    uint8_t *predicted = PyMem_Calloc((size_t)n + 1, 1);
    uint64_t *lexemes = NULL;
    Py_ssize_t lexeme_words = 0;
    PyObject *result = NULL;
    s.items = PyMem_Malloc((size_t)s.cap * sizeof *s.items);
    s.slots = PyMem_Malloc((s.mask + 1) * sizeof *s.slots);
    if (predicted == NULL || s.items == NULL || s.slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(s.slots, 0xff, (s.mask + 1) * sizeof *s.slots);
    /* items = list(dict.fromkeys(seeds)); seen = set(items) */
    int r = 0;
    for (Py_ssize_t i = 0; i < n_seeds && r == 0; i++)
        if (items_add(&s, seeds[i]) < 0)
            r = -1;
    if (r == 0)
        r = closure_run(dot_symbol, lhs, rules_of, nullable, n, shift, mask, (Py_ssize_t)limit, rows, j,
                        transitive, leo_memo, &s, predicted, &lexemes, &lexeme_words);
    if (r == 0)
        result = closure_answer(&s, dot_symbol, mask, accept_item, lexemes, lexeme_words);
    else if (r == NOT_HANDLED) {
        result = Py_None;
        Py_INCREF(result);
    }
done:
    PyMem_Free(s.items);
    PyMem_Free(s.slots);
    PyMem_Free(predicted);
    PyMem_Free(lexemes);
    return result;
}

/* ---- the parser's hooks, short --------------------------------------------------------- */

/* Most calls of `advance` and `restart` from a walk end in recognizer.py's short path: the
 * lexeme ended is scanned onto a row pushed before for the same lexemes (or an %ignore
 * that pushes nothing), so the hook only places that row and reads its lexer start. A
 * parser that has `short_path()` (the Recognizer) hands over what those lines read — its
 * rows, the lexer's greedy_accepting and lazy_accepting, skip_mask, once_skip_mask and
 * hidden_mask — and the walk takes the short path here, without calling Python; wherever
 * recognizer.py would leave it (a row to build, a transition to fill, a hidden stop) the
 * hook is called as before, having changed nothing. Each function below names the lines
 * of recognizer.py it mirrors; the rows it placed and lexemes it ended are counted as
 * `scan` counts them and handed back once, by `short_path_taken(reused, ended)`.
 *
 * None of this calls Python code on refimpl's rows and masks (list and dict reads, slots
 * read, operations on exact ints — anything else is left to the hooks —; a row displaced
 * from the list runs no finaliser), so the lexer's views stay held. */

/* Ask the parser for its short path, once per walk: 1 if it has one, 0 if not, -1 with
   an exception. */
static int
short_ready(Walk *w)
{
    if (w->short_known != 0)
        return w->short_known > 0;
    w->short_known = -1;
    lexer_release(w);  /* Python code may run: another thread may grow the lexer */
    PyObject *hook = get_attr(w->parser, "short_path");
    PyObject *r = NULL;
    if (hook != NULL) {
        r = PyObject_CallNoArgs(hook);
        Py_DECREF(hook);
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();  /* a parser with the two hooks only */
        r = Py_None;
        Py_INCREF(r);
    }
    if (r == NULL)
        return -1;
    if (r != Py_None) {
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 6 || !PyList_Check(PyTuple_GET_ITEM(r, 0))
            || !PyList_Check(PyTuple_GET_ITEM(r, 1)) || !PyList_Check(PyTuple_GET_ITEM(r, 2))
            || !PyLong_CheckExact(PyTuple_GET_ITEM(r, 3)) || !PyLong_CheckExact(PyTuple_GET_ITEM(r, 4))
            || !PyLong_CheckExact(PyTuple_GET_ITEM(r, 5))) {
            PyErr_Format(PyExc_TypeError, "parser.short_path() must return None or (rows, greedy_accepting, "
                         "lazy_accepting, skip_mask, once_skip_mask, hidden_mask): three lists and three ints, "
                         "not %.100s", Py_TYPE(r)->tp_name);
            Py_DECREF(r);
            return -1;
        }
        PyObject **parts[6] = {&w->rows, &w->greedy, &w->lazy, &w->skip_mask, &w->once_skip_mask, &w->hidden_mask};
        for (int i = 0; i < 6; i++) {
            *parts[i] = PyTuple_GET_ITEM(r, i);
            Py_INCREF(*parts[i]);
        }
        w->skips = PyObject_IsTrue(w->skip_mask);
        w->hidden = PyObject_IsTrue(w->hidden_mask);
        w->short_known = 1;
    }
    Py_DECREF(r);
    if (lexer_acquire(w) < 0)
        return -1;
    return w->short_known > 0;
}

/* row.lexer_start if it is a lexer state (0 <= s <= MAX_STATE), else -1 (recognizer.py
   leaves the short path there: -1, "not scanned onto yet"; anything else is Python's to
   refuse); -2 with an exception. */
static long
lexer_start_of(PyObject *row)
{
    PyObject *v = row_get(row, ROW_LEXER_START);
    if (v == NULL)
        return -2;
    long s = -1;
    if (PyLong_Check(v)) {
        int overflow;
        s = PyLong_AsLongAndOverflow(v, &overflow);
        if (s == -1 && PyErr_Occurred()) {
            Py_DECREF(v);
            return -2;
        }
        if (overflow || s < 0 || s > MAX_STATE)
            s = -1;
    }
    Py_DECREF(v);
    return s;
}

/* Is the int `x & y` not 0 (y NULL: is x not 0)? 1, 0, or -1 with an exception. */
static int
nonzero_and(PyObject *x, PyObject *y)
{
    if (y == NULL)
        return PyObject_IsTrue(x);
    PyObject *both = PyNumber_And(x, y);
    if (both == NULL)
        return -1;
    int r = PyObject_IsTrue(both);
    Py_DECREF(both);
    return r;
}

/* rows[top - 1] (borrowed), or NULL (no exception) if top is not in 1..len(rows). */
static PyObject *
row_below(const Walk *w, Py_ssize_t top)
{
    return top >= 1 && top <= PyList_GET_SIZE(w->rows) ? PyList_GET_ITEM(w->rows, top - 1) : NULL;
}

/* recognizer.py, Recognizer.scan(lexemes, top) where it takes the short path, as a lookup
   that changes nothing (scan_place() does the rest) — `parent` is rows[top - 1]:

       key = lexemes if not lexemes & lexer.skip_mask else lexemes & lexer.once_skip_mask
       if key and self.tracer is None:             (short_path() is None while tracing)
           row = rows[top - 1].children.get(key)
           if row is not None and row.lexer_start >= 0:
               ... return row.lexer_start, top + 1     (the row placed at rows[top])
       ...
       if lexemes & lexer.skip_mask:               (an %ignore)
           once = lexemes & lexer.once_skip_mask
           if not once:
               start, new_top = rows[top - 1].lexer_start, top    (nothing placed)

   1 with *start and *row (a new reference to the row to place at rows[top], or NULL for
   the %ignore that places nothing); 0 where scan goes on to push a row (or meets a lexer
   start that is not a state: Python's to refuse); -1 with an exception. */
static int
scan_lookup(Walk *w, PyObject *parent, PyObject *lexemes, long *start, PyObject **row)
{
    PyObject *key = lexemes;
    Py_INCREF(key);
    if (w->skips) {
        const int skip = nonzero_and(lexemes, w->skip_mask);
        if (skip < 0) {
            Py_DECREF(key);
            return -1;
        }
        if (skip) {
            Py_SETREF(key, PyNumber_And(lexemes, w->once_skip_mask));
            if (key == NULL)
                return -1;
        }
    }
    const int keyed = PyObject_IsTrue(key);
    PyObject *found;  /* the row to place, or (the %ignore) the parent */
    if (keyed < 0) {
        Py_DECREF(key);
        return -1;
    } else if (keyed) {
        PyObject *children = row_get(parent, ROW_CHILDREN);
        if (children == NULL) {
            Py_DECREF(key);
            return -1;
        }
        found = PyDict_Check(children) ? PyDict_GetItemWithError(children, key) : NULL;  /* borrowed */
        Py_XINCREF(found);
        Py_DECREF(children);
        Py_DECREF(key);
        if (found == NULL)
            return PyErr_Occurred() ? -1 : 0;
    } else {
        Py_DECREF(key);
        found = parent;
        Py_INCREF(found);
    }
    const long s = lexer_start_of(found);
    if (s < 0 || !keyed) {
        Py_DECREF(found);
        found = NULL;
    }
    if (s < 0)
        return s == -2 ? -1 : 0;
    *start = s;
    *row = found;
    return 1;
}

/* recognizer.py, the rest of scan's short path for a lookup that found `row` (a
   reference taken over; NULL: the %ignore that places nothing):

       parser.rows_reused += 1; self.lexemes_ended += 1      (counted, handed back at the end)
       if top < len(rows): rows[top] = row
       else: rows.append(row)

   0, or -1 with an exception. */
static int
row_place(Walk *w, Py_ssize_t top, PyObject *row);

static int
scan_place(Walk *w, Py_ssize_t top, PyObject *row)
{
    w->short_ended++;
    if (row == NULL)
        return 0;
    w->short_reused++;
    return row_place(w, top, row);
}

/* earley.py, Parser._place(top, row): `if top < len(rows): rows[top] = row else:
   rows.append(row)` (taking over the reference). 0, or -1 with an exception. */
static int
row_place(Walk *w, Py_ssize_t top, PyObject *row)
{
    const Py_ssize_t len = PyList_GET_SIZE(w->rows);
    if (top < len)
        return PyList_SetItem(w->rows, top, row);  /* takes the reference */
    int err = top == len ? PyList_Append(w->rows, row) : -1;
    if (top != len)
        PyErr_Format(PyExc_IndexError, "row %zd placed beyond the %zd rows", top, len);
    Py_DECREF(row);
    return err;
}

/* ---- a new row, pushed in C ------------------------------------------------------- */

/* Where the short path misses because the row is new — the lexeme (not an %ignore) was
 * never scanned after this parent — recognizer.py's `scan` pushes it: Parser.push builds
 * it with the parser's `row_builder`. When that is this module's `closure` (the native backend's
 * parsers: refimpl.serving.backends.ROW_BUILDERS), the walk does those lines itself too,
 * from what `parser.push_path()` hands over; wherever they would raise or the closure
 * leaves the row to Python (None), the hook is called, nothing having changed. It makes
 * the row as LexedRow.__init__ does (`row_new`) and counts it as RowTree.grown does
 * (`tree_grown`), reads the memos of Leo's `transitive` (row.leo), of `lexer.start_after`
 * and of `lexer.without` (`without_memo`), and calls Python only for what they do not
 * hold yet — so the lexer's views are released around it. The rows it built are counted
 * as `_build` counts them and handed back with the short path's counts. */

/* Ask the parser for its push path, once per walk: 1 if usable (its `row_builder` is
   native_closure), 0 if not, -1 with an exception. */
static PyObject *native_closure(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static int
push_ready(Walk *w)
{
    if (w->push_known != 0)
        return w->push_known > 0;
    w->push_known = -1;
    PyObject *hook = get_attr(w->parser, "push_path");
    if (hook == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();  /* a parser without it: the hook builds every new row */
        return 0;
    }
    PyObject *r = PyObject_CallNoArgs(hook);
    Py_DECREF(hook);
    if (r == NULL)
        return -1;
    if (PyTuple_CheckExact(r) && PyTuple_GET_SIZE(r) == 12) {
        PyObject *builder = PyTuple_GET_ITEM(r, 0);
        Py_ssize_t limit = PyLong_CheckExact(PyTuple_GET_ITEM(r, 4)) ? PyLong_AsSsize_t(PyTuple_GET_ITEM(r, 4)) : -1;
        if (limit == -1 && PyErr_Occurred())
            PyErr_Clear();  /* a limit beyond Py_ssize_t: left to the hook */
        else if (PyCFunction_Check(builder) && PyCFunction_GET_FUNCTION(builder) == (PyCFunction)(void (*)(void))native_closure
                 && PyDict_CheckExact(PyTuple_GET_ITEM(r, 6)) && limit >= 0) {
            w->push_parts = r;
            w->rows_limit = limit;
            w->push_known = 1;
            return 1;
        }
    }
    Py_DECREF(r);
    return 0;
}

/* Parser.seeds(parent, lexemes) as C ints, for `lexemes` below 2^64 and items below 2^62
   (else *n_seeds is -1, no exception: the hook's):
       n, waiting = self.g.n_nonterminals, parent.waiting
       for lexeme in _bits(lexemes): seeds.extend(item + 1 for item in waiting.get(n + lexeme, ()))
   *seeds (PyMem_Free'd by the caller) and *n_seeds; 0, or -1 with an exception. */
static int
seeds_of(PyObject *parent, PyObject *lexemes, PyObject *tables, int64_t **seeds, Py_ssize_t *n_seeds)
{
    *seeds = NULL;
    *n_seeds = -1;
    const unsigned long long bits = PyLong_AsUnsignedLongLong(lexemes);
    int64_t n;
    if (bits == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    const int r = small_int(PyTuple_GET_ITEM(tables, 4), ITEM_MAX - 64, &n);  /* tables is a 9-tuple: scan_push checked */
    if (r != 0)
        return r < 0 ? -1 : 0;
    PyObject *waiting = row_get(parent, ROW_WAITING);
    if (waiting == NULL)
        return -1;
    Py_ssize_t len = 0, cap = 8;
    int64_t *out = PyDict_CheckExact(waiting) ? PyMem_Malloc((size_t)cap * sizeof *out) : NULL;
    int err = PyDict_CheckExact(waiting) && out == NULL ? (PyErr_NoMemory(), -1) : 0;
    for (int bit = 0; out != NULL && bit < 64; bit++) {
        if (!(bits >> bit & 1))
            continue;
        PyObject *key = PyLong_FromLongLong(n + bit);
        PyObject *items = key == NULL ? NULL : PyDict_GetItemWithError(waiting, key);  /* borrowed */
        Py_XDECREF(key);
        if (items == NULL && (key == NULL || PyErr_Occurred()))
            err = -1;
        else if (items != NULL && !PyList_CheckExact(items))
            err = 1;  /* not refimpl's waiting lists: the hook's */
        for (Py_ssize_t i = 0; !err && items != NULL && i < PyList_GET_SIZE(items); i++) {
            if (len == cap) {
                int64_t *more = PyMem_Realloc(out, (size_t)(cap *= 2) * sizeof *more);
                if (more == NULL) {
                    err = (PyErr_NoMemory(), -1);
                    break;
                }
                out = more;
            }
            int64_t item;
            if ((err = small_int(PyList_GET_ITEM(items, i), ITEM_MAX - 1, &item)) == 0)
                out[len++] = item + 1;
        }
        if (err) {
            PyMem_Free(out);
            out = NULL;
        }
    }
    Py_DECREF(waiting);
    if (out == NULL)
        return err < 0 ? -1 : 0;
    *seeds = out;
    *n_seeds = len;
    return 0;
}

/* A new row of the push path's row class (recognizer.py's LexedRow: push_path() says so),
   made as its __init__ makes it, with the build's answer set at once:

       row = self.row(items)               earley.py, Row.__init__(items):
                                               self.items = items; self.waiting = {}
                                               self.allowed = 0; self.accepting = False
                                               self.leo = {}; self.children = {}
                                           recognizer.py, LexedRow.__init__: self.lexer_start = -1
       row.waiting, row.allowed, row.accepting = waiting, allowed, accepting

   (the empty `waiting` that __init__ makes and the assignment replaces is not made). A
   new reference, or NULL with an exception. */
static PyObject *
row_new(PyObject *cls, PyObject *items, PyObject *waiting, PyObject *allowed, PyObject *accepting)
{
    static PyObject *empty = NULL, *minus_one = NULL;  /* kept for the life of the process */
    if ((empty == NULL && (empty = PyTuple_New(0)) == NULL)
        || (minus_one == NULL && (minus_one = PyLong_FromLong(-1)) == NULL))
        return NULL;
    if (!PyType_Check(cls)) {
        PyErr_Format(PyExc_TypeError, "push_path()'s row class must be a class, not %.100s", Py_TYPE(cls)->tp_name);
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    PyObject *row = type->tp_new(type, empty, NULL);  /* object.__new__(cls): no __init__ */
    if (row == NULL)
        return NULL;
    PyObject *leo = PyDict_New(), *children = PyDict_New();
    int err = leo == NULL || children == NULL || row_set(row, ROW_ITEMS, items) < 0
        || row_set(row, ROW_WAITING, waiting) < 0 || row_set(row, ROW_ALLOWED, allowed) < 0
        || row_set(row, ROW_ACCEPTING, accepting) < 0 || row_set(row, ROW_LEO, leo) < 0
        || row_set(row, ROW_CHILDREN, children) < 0 || row_set(row, ROW_LEXER_START, minus_one) < 0;
    Py_XDECREF(leo);
    Py_XDECREF(children);
    if (err)
        Py_CLEAR(row);
    return row;
}

/* earley.py, RowTree.grown(row), for a row of `n` items (`shared` is SHARED_ITEMS):

       self.items += len(row.items)
       if self.items > SHARED_ITEMS: self.full = True

   0, or -1 with an exception. */
static int
tree_grown(PyObject *tree, Py_ssize_t n, PyObject *shared)
{
    PyObject *items = get_attr(tree, "items");
    PyObject *len = items == NULL ? NULL : PyLong_FromSsize_t(n);
    PyObject *sum = len == NULL ? NULL : PyNumber_InPlaceAdd(items, len);
    Py_XDECREF(len);
    Py_XDECREF(items);
    if (sum == NULL || set_attr(tree, "items", sum) < 0) {
        Py_XDECREF(sum);
        return -1;
    }
    const int over = PyObject_RichCompareBool(sum, shared, Py_GT);
    Py_DECREF(sum);
    if (over <= 0)
        return over;
    return set_attr(tree, "full", Py_True);
}

/* recognizer.py, Recognizer.scan(lexemes, top) where it pushes a new row (`parent` is
   rows[top - 1], which has no child for `lexemes`):

       new_top = parser.push(top, lexemes)            Parser.push, the row missing:
           seeds = self.seeds(parent, lexemes)
           if not seeds: return 0
           self._check_rows(top)                        (past the limit: the hook raises)
           row = parent.children[lexemes] = self._build(top, seeds)
               built = self.row_builder(self.tables, self.rows, j, seeds, transitive)   (None: the hook)
               self.rows_built += 1
               row = self.row(built[0]); row.waiting, row.allowed, row.accepting = built[1:]
           self.tree.grown(row)
           return self._place(top, row)
       if not new_top: return DEAD, top
       row = rows[top]; start = row.lexer_start
       if start < 0: start = row.lexer_start = lexer.start_after(row.allowed)
       self.lexemes_ended += 1
       return start, new_top

   1 with *start and *new_top (DEAD and top where nothing is pushed); 0 where the hook
   must be called (nothing changed); -1 with an exception. */
static int
copy_push(Walk *w, PyObject *parent, PyObject *lexemes, Py_ssize_t top, long *start, Py_ssize_t *new_top);

/* The end of both pushes: row.lexer_start = s (what `what` answered), the lexeme ended,
 * the walk goes on from that start in the row above `top` (scan's last lines). 1, or -1
 * with the error set. */
static int
placed_start(Walk *w, PyObject *row, PyObject *s, const char *what, Py_ssize_t top, long *start,
             Py_ssize_t *new_top)
{
    if (row_set(row, ROW_LEXER_START, s) < 0)
        return -1;
    const long st = lexer_start_of(row);
    if (st < 0) {  /* not a lexer state: Python's to refuse, as in scan_lookup */
        if (st == -1)
            PyErr_Format(PyExc_ValueError, "%s answered a value that is not a lexer state", what);
        return -1;
    }
    w->short_ended++;
    *start = st;
    *new_top = top + 1;
    return 1;
}

static int
scan_push(Walk *w, PyObject *parent, PyObject *lexemes, Py_ssize_t top, long *start, Py_ssize_t *new_top)
{
    const int ready = push_ready(w);
    if (ready <= 0)
        return ready;
    if (w->skips) {
        const int skip = nonzero_and(lexemes, w->skip_mask);
        if (skip != 0)
            return skip < 0 ? -1 : copy_push(w, parent, lexemes, top, start, new_top);  /* an %ignore */
    }
    PyObject *children = row_get(parent, ROW_CHILDREN);
    if (children == NULL)
        return -1;
    int present = PyDict_CheckExact(children) ? PyDict_Contains(children, lexemes) : 1;
    if (present != 0) {  /* there after all (a row not scanned onto yet), or not a dict: the hook's */
        Py_DECREF(children);
        return present < 0 ? -1 : 0;
    }
    PyObject *tables = PyTuple_GET_ITEM(w->push_parts, 1);
    if (!PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 9) {
        Py_DECREF(children);
        return 0;
    }
    int64_t *seeds;
    Py_ssize_t n_seeds;
    if (seeds_of(parent, lexemes, tables, &seeds, &n_seeds) < 0 || n_seeds < 0) {
        Py_DECREF(children);
        return PyErr_Occurred() ? -1 : 0;
    }
    if (n_seeds == 0) {  /* if not seeds: return 0 (scan: DEAD, top) */
        PyMem_Free(seeds);
        Py_DECREF(children);
        *start = DEAD;
        *new_top = top;
        return 1;
    }
    int r = 0;
    PyObject *j = NULL, *built = NULL, *row = NULL, *allowed = NULL, *s = NULL;
    lexer_release(w);  /* Python code may run from here on */
    if (top >= w->rows_limit)  /* self._check_rows(top): the hook raises */
        goto done;
    j = PyLong_FromSsize_t(top);
    if (j == NULL)
        goto fail;
    built = closure_of(tables, w->rows, j, seeds, n_seeds, PyTuple_GET_ITEM(w->push_parts, 2), 1);
    if (built == NULL)
        goto fail;
    if (built == Py_None)  /* left to Python's closure: the hook */
        goto done;
    w->short_built++;
    row = row_new(PyTuple_GET_ITEM(w->push_parts, 3), PyTuple_GET_ITEM(built, 0), PyTuple_GET_ITEM(built, 1),
                  PyTuple_GET_ITEM(built, 2), PyTuple_GET_ITEM(built, 3));
    if (row == NULL || PyDict_SetItem(children, lexemes, row) < 0
        || tree_grown(PyTuple_GET_ITEM(w->push_parts, 5), PyList_GET_SIZE(PyTuple_GET_ITEM(built, 0)),
                      PyTuple_GET_ITEM(w->push_parts, 9)) < 0)
        goto fail;
    Py_INCREF(row);
    if (row_place(w, top, row) < 0)
        goto fail;
    /* start = row.lexer_start = lexer.start_after(row.allowed), the row being new (-1) */
    allowed = row_get(row, ROW_ALLOWED);
    if (allowed == NULL)
        goto fail;
    s = PyDict_GetItemWithError(PyTuple_GET_ITEM(w->push_parts, 6), allowed);
    if (s != NULL)
        Py_INCREF(s);
    else if (PyErr_Occurred() || (s = PyObject_CallOneArg(PyTuple_GET_ITEM(w->push_parts, 7), allowed)) == NULL)
        goto fail;
    r = placed_start(w, row, s, "lexer.start_after()", top, start, new_top);
    goto done;
fail:
    r = -1;
done:
    Py_XDECREF(s);
    Py_XDECREF(allowed);
    Py_XDECREF(row);
    Py_XDECREF(built);
    Py_XDECREF(j);
    PyMem_Free(seeds);
    Py_DECREF(children);
    if (lexer_acquire(w) < 0 && r >= 0)
        r = -1;
    return r;
}

/* recognizer.py, Recognizer.scan(lexemes, top) for an %ignore matched once, its copy of
   the row new (`parent` is rows[top - 1]):

       once = lexemes & lexer.once_skip_mask           (0: nothing pushed, scan_lookup's)
       new_top = parser.push_copy(top, once)           Parser.push_copy, the copy missing:
           self._check_rows(top)                         (past the limit: the hook raises)
           row = parent.children[skips] = self.row(parent.items)
           row.waiting, row.allowed, row.accepting = parent.waiting, parent.allowed, parent.accepting
           self.rows_built += 1
           self.tree.grown(row)
           return self._place(top, row)
       row = rows[top]
       start = row.lexer_start = lexer.without(rows[top - 1].lexer_start, once)   (its memo: without_memo)
       self.lexemes_ended += 1
       return start, new_top

   1 with *start and *new_top; 0 where the hook must be called (nothing changed); -1 with
   an exception. */
/* lexer.py, Lexer.without(start, lexemes) where start_state's memo has the answer:

       return self.start_state(self.possible[start] & ~lexemes)
           s = self._starts.get(allowed)                 (None: not memoised yet)

   A new reference to the state; NULL without an exception where Python must answer
   (not memoised, not refimpl's types), NULL with one on an error. */
static PyObject *
without_memo(Walk *w, PyObject *start, PyObject *lexemes)
{
    PyObject *possible = PyTuple_GET_ITEM(w->push_parts, 10), *starts = PyTuple_GET_ITEM(w->push_parts, 11);
    if (!PyList_CheckExact(possible) || !PyDict_CheckExact(starts) || !PyLong_CheckExact(start))
        return NULL;
    const Py_ssize_t i = PyLong_AsSsize_t(start);
    if (i == -1 && PyErr_Occurred()) {
        PyErr_Clear();  /* beyond Py_ssize_t: Python's */
        return NULL;
    }
    if (i < 0 || i >= PyList_GET_SIZE(possible))
        return NULL;
    PyObject *keep = PyNumber_Invert(lexemes);
    PyObject *allowed = keep == NULL ? NULL : PyNumber_And(PyList_GET_ITEM(possible, i), keep);
    Py_XDECREF(keep);
    if (allowed == NULL)
        return NULL;
    PyObject *s = PyDict_GetItemWithError(starts, allowed);  /* borrowed */
    Py_DECREF(allowed);
    Py_XINCREF(s);
    return s;
}

static int
copy_push(Walk *w, PyObject *parent, PyObject *lexemes, Py_ssize_t top, long *start, Py_ssize_t *new_top)
{
    PyObject *once = PyNumber_And(lexemes, w->once_skip_mask);
    if (once == NULL)
        return -1;
    const int any = PyObject_IsTrue(once);
    PyObject *children = any > 0 ? row_get(parent, ROW_CHILDREN) : NULL;
    const int present = children == NULL ? -1 : PyDict_CheckExact(children) ? PyDict_Contains(children, once) : 1;
    if (any <= 0 || present != 0 || top >= w->rows_limit) {
        /* not a once-%ignore, a copy there already (not scanned onto), past the limit: the hook's */
        Py_XDECREF(children);
        Py_DECREF(once);
        return any < 0 || (any > 0 && present < 0) ? -1 : 0;
    }
    int r = -1;
    PyObject *items = NULL, *row = NULL, *below = NULL, *s = NULL;
    lexer_release(w);  /* Python code may run from here on */
    static const int copied[4] = {ROW_ITEMS, ROW_WAITING, ROW_ALLOWED, ROW_ACCEPTING};
    PyObject *parts[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if ((parts[i] = row_get(parent, copied[i])) == NULL)
            break;
    row = parts[3] == NULL ? NULL : row_new(PyTuple_GET_ITEM(w->push_parts, 3), parts[0], parts[1], parts[2], parts[3]);
    for (int i = 0; i < 4; i++)
        Py_XDECREF(parts[i]);
    if (row == NULL || PyDict_SetItem(children, once, row) < 0)
        goto done;
    w->short_built++;
    items = row_get(row, ROW_ITEMS);
    if (items == NULL)
        goto done;
    if (!PyList_Check(items)) {  /* not refimpl's rows: len() as Python reads it */
        const Py_ssize_t n = PyObject_Length(items);
        if (n < 0 || tree_grown(PyTuple_GET_ITEM(w->push_parts, 5), n, PyTuple_GET_ITEM(w->push_parts, 9)) < 0)
            goto done;
    } else if (tree_grown(PyTuple_GET_ITEM(w->push_parts, 5), PyList_GET_SIZE(items), PyTuple_GET_ITEM(w->push_parts, 9)) < 0)
        goto done;
    Py_INCREF(row);
    if (row_place(w, top, row) < 0)
        goto done;
    below = row_get(parent, ROW_LEXER_START);
    s = below == NULL ? NULL : without_memo(w, below, once);
    if (s == NULL && below != NULL && !PyErr_Occurred()) {  /* not memoised yet: lexer.without() */
        PyObject *args[2] = {below, once};
        s = PyObject_Vectorcall(PyTuple_GET_ITEM(w->push_parts, 8), args, 2, NULL);
    }
    if (s != NULL)
        r = placed_start(w, row, s, "lexer.without()", top, start, new_top);
done:
    Py_XDECREF(s);
    Py_XDECREF(below);
    Py_XDECREF(row);
    Py_XDECREF(items);
    Py_DECREF(children);
    Py_DECREF(once);
    if (lexer_acquire(w) < 0 && r >= 0)
        r = -1;
    return r;
}

/* recognizer.py, Recognizer.restart(state, top), where it takes the short path:

       ended = self.lexer.greedy_accepting[state]
       if not ended: return DEAD, top
       return self.scan(ended, top)

   1 with *start and *new_top, the row placed; 0 where the hook must be called (nothing
   changed); -1 with an exception. */
static int
restart_short(Walk *w, long s, Py_ssize_t top, long *start, Py_ssize_t *new_top)
{
    PyObject *parent = row_below(w, top);
    if (parent == NULL || s >= PyList_GET_SIZE(w->greedy))
        return 0;
    PyObject *ended = PyList_GET_ITEM(w->greedy, s);
    if (!PyLong_CheckExact(ended))
        return 0;  /* not refimpl's: Python's */
    const int any = PyObject_IsTrue(ended);
    if (any < 0)
        return -1;
    if (!any) {
        *start = DEAD;
        *new_top = top;
        return 1;
    }
    PyObject *row;
    const int hit = scan_lookup(w, parent, ended, start, &row);
    if (hit == 0)  /* a new row: pushed here where the push path is, else the hook's */
        return scan_push(w, parent, ended, top, start, new_top);
    if (hit < 0)
        return hit;
    *new_top = top + (row != NULL);
    return scan_place(w, top, row) < 0 ? -1 : 1;
}

/* walk.py: `restart(s, scan_tops[-1])[0]`: the short path, or the hook. The state, or -1
   with an exception. */
static long
call_restart_or_short(Walk *w, long s, Py_ssize_t top)
{
    const int ready = short_ready(w);
    if (ready < 0)
        return -1;
    if (ready) {
        long start;
        Py_ssize_t new_top;
        const int hit = restart_short(w, s, top, &start, &new_top);
        if (hit != 0)
            return hit < 0 ? -1 : start;
    }
    return call_restart(w, s, top);
}

/* recognizer.py, Recognizer.advance(state, top, b), where it takes the short path; `t`
   is table[state << 8 | b], which step() has read (filled if it was not):

       t = lexer.table[state << 8 | b]
       if t == DEAD:
           start, top = self.restart(state, top)        (restart_short's lines)
           if start == DEAD: return DEAD, top
           t = lexer.step(start, b)                     (a missing entry: the hook fills it)
           if t == DEAD: return DEAD, top
       ended = lexer.lazy_accepting[t]
       if ended:
           start, top = self.scan(ended, top)
           if ended & self.hidden_mask ...              (a hidden stop: the hook's)
           return start, top
       return t, top

   The two scans are looked up first and placed only when both are short, so a miss
   changes nothing. 1 with *t_out and *top_out; 0 where the hook must be called; -1 with
   an exception. */
static int
advance_short(Walk *w, long s, long t, Py_ssize_t top, int b, long *t_out, Py_ssize_t *top_out)
{
    PyObject *parent = row_below(w, top);
    if (parent == NULL)
        return 0;
    PyObject *row = NULL;   /* the restart's scan: the row to place at rows[top] */
    int restarted = 0;
    Py_ssize_t after = top;  /* the top after the restart */
    if (t == DEAD) {
        if (s >= PyList_GET_SIZE(w->greedy))
            return 0;
        PyObject *ended = PyList_GET_ITEM(w->greedy, s);
        if (!PyLong_CheckExact(ended))
            return 0;  /* not refimpl's: Python's */
        const int any = PyObject_IsTrue(ended);
        if (any <= 0) {
            *t_out = DEAD;
            *top_out = top;
            return any < 0 ? -1 : 1;
        }
        long start;
        const int hit = scan_lookup(w, parent, ended, &start, &row);
        if (hit <= 0)
            return hit;
        restarted = 1;
        after = top + (row != NULL);
        if (row != NULL)
            parent = row;
        t = DEAD;
        if (start != DEAD) {
            const size_t index = (size_t)start << 8 | (size_t)b;
            t = index < (size_t)w->table.len ? ((const int32_t *)w->table.view.buf)[index] : -1;
            if (t < 0) {  /* not filled yet: the hook's */
                Py_XDECREF(row);
                return 0;
            }
        }
        if (t == DEAD) {
            *t_out = DEAD;
            *top_out = after;
            return scan_place(w, top, row) < 0 ? -1 : 1;
        }
    }
    if (t >= PyList_GET_SIZE(w->lazy)) {
        Py_XDECREF(row);
        return 0;
    }
    PyObject *ended = PyList_GET_ITEM(w->lazy, t);
    if (!PyLong_CheckExact(ended)) {  /* not refimpl's: Python's */
        Py_XDECREF(row);
        return 0;
    }
    const int lazy = PyObject_IsTrue(ended);
    if (lazy < 0) {
        Py_XDECREF(row);
        return -1;
    }
    long start = t;
    PyObject *row2 = NULL;  /* the lazy lexeme's scan: the row to place at rows[after] */
    Py_ssize_t end_top = after;
    if (lazy) {
        if (w->hidden) {
            const int hidden = nonzero_and(ended, w->hidden_mask);
            if (hidden != 0) {  /* a hidden stop (the hook's), or an exception */
                Py_XDECREF(row);
                return hidden < 0 ? -1 : 0;
            }
        }
        const int hit = scan_lookup(w, parent, ended, &start, &row2);
        if (hit <= 0) {
            Py_XDECREF(row);
            return hit;
        }
        end_top = after + (row2 != NULL);
    }
    if (restarted && scan_place(w, top, row) < 0) {
        Py_XDECREF(row2);
        return -1;
    }
    if (lazy && scan_place(w, after, row2) < 0)
        return -1;
    *t_out = start;
    *top_out = end_top;
    return 1;
}

/* walk.py: `t, top = advance(s, scan_tops[-1], b)`, where t = table[s << 8 | b] was read:
   the short path, or the hook. 0 and (*t_out, *top_out), or -1 with an exception. */
static int
call_advance_or_short(Walk *w, long s, long t, Py_ssize_t top, int b, long *t_out, Py_ssize_t *top_out)
{
    const int ready = short_ready(w);
    if (ready < 0)
        return -1;
    if (ready) {
        const int hit = advance_short(w, s, t, top, b, t_out, top_out);
        if (hit != 0)
            return hit < 0 ? -1 : 0;
    }
    return call_advance(w, s, top, b, t_out, top_out);
}

/* recognizer.py: what the short path counted (`parser.rows_reused += 1`,
   `self.lexemes_ended += 1`), handed back once: parser.short_path_taken(reused, ended).
   An exception already raised stays the one raised. 0, or -1 with an exception. */
static int
short_taken(Walk *w)
{
    if (w->short_reused == 0 && w->short_ended == 0 && w->short_built == 0)
        return 0;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    lexer_release(w);
    PyObject *name = name_of("short_path_taken");
    PyObject *args[4] = {w->parser, PyLong_FromSsize_t(w->short_reused), PyLong_FromSsize_t(w->short_ended),
                         PyLong_FromSsize_t(w->short_built)};
    PyObject *r = NULL;
    if (name != NULL && args[1] != NULL && args[2] != NULL && args[3] != NULL)  /* `built` only if any */
        r = PyObject_VectorcallMethod(name, args, w->short_built ? 4 : 3, NULL);
    Py_XDECREF(args[1]);
    Py_XDECREF(args[2]);
    Py_XDECREF(args[3]);
    w->short_reused = w->short_ended = w->short_built = 0;
    Py_XDECREF(r);
    if (type != NULL) {
        PyErr_Restore(type, value, traceback);
        return -1;
    }
    return r == NULL ? -1 : 0;
}

/* walk.py: `for x in trie.multi[n]: allowed[x] = 1` (several tokens share node n's bytes). */
static int
set_several(Walk *w, Py_ssize_t n)
{
    if (w->multi == NULL) {
        w->multi = get_attr(w->trie, "multi");
        if (w->multi == NULL)
            return -1;
    }
    PyObject *key = PyLong_FromSsize_t(n);
    if (key == NULL)
        return -1;
    PyObject *ids = PyObject_GetItem(w->multi, key);
    Py_DECREF(key);
    if (ids == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(ids, "trie.multi[node] must be a sequence of token ids");
    Py_DECREF(ids);
    if (seq == NULL)
        return -1;
    int err = 0;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < k && !err; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(x)) {
            PyErr_Format(PyExc_TypeError, "trie.multi[%zd] must hold ints, not %.100s", n, Py_TYPE(x)->tp_name);
            err = 1;
            break;
        }
        Py_ssize_t id = PyLong_AsSsize_t(x);
        if (id == -1 && PyErr_Occurred()) {
            err = 1;
        } else if (id < 0 || id >= w->allowed.len) {
            PyErr_Format(PyExc_IndexError, "token id %zd (trie.multi[%zd]) is beyond allowed (%zd flags)",
                         id, n, w->allowed.len);
            err = 1;
        } else {
            ((uint8_t *)w->allowed.view.buf)[id] = 1;
        }
    }
    Py_DECREF(seq);
    return err ? -1 : 0;
}

/* ---- the walk ----------------------------------------------------------------------- */

/* The walk is split in two, for speed and nothing else:
 *
 *   step()     one node, exactly walk.py's loop body: callbacks, errors, every case;
 *   fast_run() the same loop body for as long as it needs no callback and no Python
 *              object: the common case, a few array reads per node, in local variables.
 *              At a node it cannot finish it stops, having changed nothing step()
 *              would not do again in the same way, and step() takes that node.
 *
 * run() alternates them. Both read the same fields of Walk: n, skipped, the states per
 * depth and the (depth, top) stack. */

/* walk.py's pop: `if d <= last: while scan_depths[-1] >= d: pop(); last = scan_depths[-1]`.
   Never below entry 0 (depth 0 < d). Doing it twice is the same as once. */
#define POP_SCANS(d, last, sp, scan_depths)        \
    do {                                           \
        if ((d) <= (last)) {                       \
            while ((scan_depths)[sp] >= (d))       \
                (sp)--;                            \
            (last) = (scan_depths)[sp];            \
        }                                          \
    } while (0)

/* walk.py: `skipped += end[n] - n - 1; n = end[n]` for n = w->n. end[n] must lie in
   n+1 .. size (walk.py would loop forever, or count nodes that are not there). */
static int
skip_subtree(Walk *w)
{
    const Py_ssize_t n = w->n, e = ((const int32_t *)w->end.view.buf)[n];
    if (e <= n || e > w->size) {
        PyErr_Format(PyExc_ValueError, "malformed trie: end[%zd] = %zd (nodes %zd)", n, e, w->size);
        return -1;
    }
    w->skipped += e - n - 1;
    w->n = e;
    return 0;
}

/* refimpl/recognition/lexer.py: WORDS, the 64-bit words of a set of bits 0..256 (the bytes and
   MULTIBYTE), in lexer.escape_words and trie.subtrees().byte_set_words */
#define WORDS 5

/* walk.py: `not byte_sets[k] & escapes[i]`: does all that the subtree reads (set k) loop
   (escapes i)? The ids must be in range (the caller checks). */
static inline int
all_loop(const uint64_t *set_words, Py_ssize_t k, const uint64_t *escape_words, Py_ssize_t i)
{
    const uint64_t *a = set_words + WORDS * k, *e = escape_words + WORDS * i;
    return !((a[0] & e[0]) | (a[1] & e[1]) | (a[2] & e[2]) | (a[3] & e[3]) | (a[4] & e[4]));
}

/* walk.py: `for x in subtree_tokens[first[n]:first[end[n]]]: allowed[x] = 1` for
   e = end[n] (n < e <= size). 0, or -1 where an index is out of range (no exception set:
   fast_run stops there, step() raises). Setting a bit twice is harmless. */
static int
set_subtree(const Walk *w, Py_ssize_t n, Py_ssize_t e)
{
    const int32_t *first = (const int32_t *)w->first.view.buf;
    const int32_t *tokens = (const int32_t *)w->subtree_tokens.view.buf;
    uint8_t *allowed = (uint8_t *)w->allowed.view.buf;
    const Py_ssize_t lo = first[n], hi = first[e];
    if (lo < 0 || hi < lo || hi > w->subtree_tokens.len)
        return -1;
    for (Py_ssize_t j = lo; j < hi; j++) {
        const int32_t tok = tokens[j];
        if (tok < 0 || tok >= w->allowed.len)
            return -1;
        allowed[tok] = 1;
    }
    return 0;
}

/* walk.py's whole-subtree case for node n from state s, after `i = loop_of[s]` (and
   `loop(s)` if it was not known): 1 if the subtree was taken whole (w->n moved past it),
   0 if not, -1 with an exception. */
static int
whole_subtree(Walk *w, Py_ssize_t n, long s, long i)
{
    /* walk.py: k = below[n]; if i and k and not byte_sets[k] & escapes[i] and not ends[s] & lazy_ends */
    const long k = ((const int32_t *)w->below.view.buf)[n];
    if (i == 0 || k == 0)
        return 0;
    if (i >= w->escape_words.len / WORDS || k < 0 || k >= w->set_words.len / WORDS) {
        PyErr_Format(PyExc_IndexError, "loop id %ld or subtree set id %ld out of range", i, k);
        return -1;
    }
    if (!all_loop((const uint64_t *)w->set_words.view.buf, k, (const uint64_t *)w->escape_words.view.buf, i))
        return 0;
    if (s >= w->ends.len) {
        PyErr_Format(PyExc_IndexError, "lexer state %ld is beyond lexer.ends (%zd states)", s, w->ends.len);
        return -1;
    }
    if (((const uint8_t *)w->ends.view.buf)[s] & LAZY_ENDS)
        return 0;
    const Py_ssize_t e = ((const int32_t *)w->end.view.buf)[n];
    if (e <= n || e > w->size) {
        PyErr_Format(PyExc_ValueError, "malformed trie: end[%zd] = %zd (nodes %zd)", n, e, w->size);
        return -1;
    }
    if (set_subtree(w, n, e) < 0) {
        PyErr_Format(PyExc_IndexError, "the tokens of subtree %zd are out of range", n);
        return -1;
    }
    w->n = e;
    return 1;
}

/* One node: walk.py's loop body for node w->n, line by line. 0, or -1 with an exception. */
static int
step(Walk *w)
{
    const Py_ssize_t n = w->n;
    /* walk.py: d = depth[n]; if d <= last: ... (pop) */
    const long d = ((const uint16_t *)w->depth.view.buf)[n];
    if (d < 1 || d > w->max_depth) {
        PyErr_Format(PyExc_ValueError, "malformed trie: depth[%zd] = %ld (max_depth %ld)", n, d, w->max_depth);
        return -1;
    }
    POP_SCANS(d, w->last, w->sp, w->scan_depths);
    /* walk.py: s = states[d - 1]; b = byte[n]; t = table[s << 8 | b]; if t < 0: t = fill(s, b)
       (0 <= s <= MAX_STATE) */
    const long s = w->states[d - 1];
    /* walk.py: i = loop_of[s]; k = below[n]; if i and k: (if i < 0: i = loop(s)); the subtree
       whole, or on */
    if (s >= w->loop_of.len) {
        PyErr_Format(PyExc_IndexError, "lexer state %ld is beyond lexer.loop_of (%zd states)", s, w->loop_of.len);
        return -1;
    }
    long i = ((const int32_t *)w->loop_of.view.buf)[s];
    if (i != 0 && ((const int32_t *)w->below.view.buf)[n] != 0) {
        if (i < 0 && (i = call_loop(w, s)) < 0)
            return -1;
        const int whole = whole_subtree(w, n, s, i);
        if (whole != 0)
            return whole < 0 ? -1 : 0;
    }
    const int b = ((const uint8_t *)w->byte.view.buf)[n];
    long t = next_state(w, s, b);
    if (t < 0)
        return -1;
    /* walk.py: if t == 0 or ends[t] & lazy_ends: */
    if (t >= w->ends.len || (t == DEAD && s >= w->ends.len)) {
        PyErr_Format(PyExc_IndexError, "lexer state %ld is beyond lexer.ends (%zd states)",
                     t == DEAD ? s : t, w->ends.len);
        return -1;
    }
    const uint8_t *ends = (const uint8_t *)w->ends.view.buf;
    if (t == DEAD || (ends[t] & LAZY_ENDS)) {
        if (t == DEAD) {
            /* walk.py: if t == 0: u = 0; if ends[s] & greedy_ends: ...; if u == 0: skip */
            if (!(ends[s] & GREEDY_ENDS))
                return skip_subtree(w);
            /* walk.py: r = restarts[-1].get(s, -1)
                        if r < 0: r = restarts[-1][s] = restart(s, scan_tops[-1])[0] */
            const uint64_t key = (w->serials[w->sp] << 24 | (uint64_t)s) + 1;
            long r;
            if (!memo_get(&w->restarts, key, &r)) {
                r = call_restart_or_short(w, s, w->scan_tops[w->sp]);
                if (r < 0 || memo_put(&w->restarts, key, r) < 0)
                    return -1;
            }
            /* walk.py: if r != 0: u = table[r << 8 | b]; if u < 0: u = fill(r, b) */
            if (r == DEAD)
                return skip_subtree(w);
            const long u = next_state(w, r, b);
            if (u < 0)
                return -1;
            if (u == DEAD)
                return skip_subtree(w);
        }
        /* walk.py: t, top = advance(s, scan_tops[-1], b); if t == 0: skip the subtree */
        Py_ssize_t top;
        if (call_advance_or_short(w, s, t, w->scan_tops[w->sp], b, &t, &top) < 0)
            return -1;
        if (t == DEAD)
            return skip_subtree(w);
        /* walk.py: scan_depths.append(d); scan_tops.append(top); restarts.append({}); last = d
           (d > last here: the stack's depths increase, so it holds at most max_depth + 1) */
        w->sp++;
        w->scan_depths[w->sp] = (int32_t)d;
        w->scan_tops[w->sp] = top;
        w->serials[w->sp] = ++w->serial;
        w->last = d;
    }
    /* walk.py: states[d] = t */
    w->states[d] = (int32_t)t;
    /* walk.py: tok = token[n]; if tok >= 0: allowed[tok] = 1
                elif tok == SEVERAL_TOKENS: for x in trie.multi[n]: allowed[x] = 1 */
    const int32_t tok = ((const int32_t *)w->token.view.buf)[n];
    if (tok >= 0) {
        if (tok >= w->allowed.len) {
            PyErr_Format(PyExc_IndexError, "token id %ld (node %zd) is beyond allowed (%zd flags)",
                         (long)tok, n, w->allowed.len);
            return -1;
        }
        ((uint8_t *)w->allowed.view.buf)[tok] = 1;
    } else if (tok == SEVERAL_TOKENS) {
        if (set_several(w, n) < 0)
            return -1;
    }
    /* walk.py: n += 1 */
    w->n = n + 1;
    return 0;
}

/* walk.py's loop over the nodes that need neither a callback nor a Python object: until
   the end, or until a node where step() is needed (a missing table entry, a lexeme that
   may end — unless its restart is known and the next lexeme cannot start with the byte —,
   several tokens, anything out of range). Its locals are loaded once; each
   rare case costs one unsigned comparison in the common path (a range check folded in:
   (x - lo) as unsigned < (hi - lo) tests lo <= x < hi), and the flag is written
   without a branch (whether a node ends a token is a coin toss the predictor loses). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
fast_run(Walk *w)
{
    const uint8_t *const byte = (const uint8_t *)w->byte.view.buf;
    const uint16_t *const depth = (const uint16_t *)w->depth.view.buf;
    const int32_t *const end = (const int32_t *)w->end.view.buf;
    const int32_t *const token = (const int32_t *)w->token.view.buf;
    uint8_t *const allowed = (uint8_t *)w->allowed.view.buf;
    const size_t allowed_len = (size_t)w->allowed.len;
    const int32_t *const table = (const int32_t *)w->table.view.buf;
    const size_t table_len = (size_t)w->table.len;
    const uint8_t *const ends = (const uint8_t *)w->ends.view.buf;
    const size_t ends_len = (size_t)w->ends.len;
    const int32_t *const loop_of = (const int32_t *)w->loop_of.view.buf;
    const size_t loop_of_len = (size_t)w->loop_of.len;
    const uint64_t *const escape_words = (const uint64_t *)w->escape_words.view.buf;
    const size_t n_escapes = (size_t)w->escape_words.len / WORDS;
    const int32_t *const below = (const int32_t *)w->below.view.buf;
    const uint64_t *const set_words = (const uint64_t *)w->set_words.view.buf;
    const size_t n_sets = (size_t)w->set_words.len / WORDS;
    int32_t *const states = w->states;
    const int32_t *const scan_depths = w->scan_depths;
    const unsigned long max_depth = (unsigned long)w->max_depth;
    const Py_ssize_t size = w->size;
    Py_ssize_t n = w->n, skipped = w->skipped, sp = w->sp;
    long last = w->last;  /* 0 <= last <= max_depth: the depth of a node walked */
    uint8_t sink = 0;     /* where a node without a token writes its flag */
    if (ends_len == 0)
        return;           /* no lexer state at all: step() raises */

    while (n < size) {
        /* walk.py: d = depth[n]; if d <= last: pop ... — the common case is
           last < d <= max_depth; otherwise pop, or stop at a malformed depth */
        const long d = depth[n];
        if (UNLIKELY((unsigned long)(d - last - 1) >= max_depth - (unsigned long)last)) {
            if ((unsigned long)(d - 1) >= max_depth)
                break;                                  /* malformed: step() says so */
            POP_SCANS(d, last, sp, scan_depths);
        }
        /* walk.py: s = states[d - 1]; i = loop_of[s]; k = below[n]; if i and k: ... (a subtree
           whose bytes all loop on s, taken whole; a loop not known yet, an id out of range:
           step()) */
        const size_t s = (size_t)states[d - 1];
        if (UNLIKELY(s >= loop_of_len))
            break;
        const int32_t i = loop_of[s];
        const uint32_t k = (uint32_t)below[n];
        if (i != 0 && k != 0) {
            if (UNLIKELY(i < 0))
                break;
            if (UNLIKELY((size_t)i >= n_escapes || k >= n_sets || s >= ends_len))
                break;
            if (all_loop(set_words, k, escape_words, i) && !(ends[s] & LAZY_ENDS)) {
                const Py_ssize_t e = end[n];
                if (e <= n || e > size || set_subtree(w, n, e) < 0)
                    break;                          /* malformed: step() says so */
                n = e;
                continue;
            }
        }
        /* walk.py: b = byte[n]; t = table[s << 8 | b] */
        const size_t index = s << 8 | byte[n];
        if (UNLIKELY(index >= table_len))
            break;                                      /* not computed: fill */
        const int32_t t = table[index];
        /* walk.py: if t == 0 or ends[t] & lazy_ends — the common case is 0 < t < len(ends) */
        if ((size_t)((long)t - 1) >= ends_len - 1) {
            if (t != DEAD || s >= ends_len)
                break;                                  /* fill, advance, or an error */
            if (ends[s] & GREEDY_ENDS) {
                /* walk.py: r = restarts[-1].get(s, -1) — known (else step() asks restart);
                   if r != 0: u = table[r << 8 | b] — known (else step() fills); if u == 0:
                   skip the subtree (else step() calls advance) */
                long r;
                if (!memo_get(&w->restarts, (w->serials[sp] << 24 | (uint64_t)s) + 1, &r))
                    break;
                if (r != DEAD) {
                    const size_t r_index = (size_t)r << 8 | byte[n];
                    if (r_index >= table_len || table[r_index] != DEAD)
                        break;
                }
            }
            /* walk.py: if u == 0 (t == 0, and no lexeme ends in s, or the next one cannot
               start with b): skip the subtree */
            const Py_ssize_t e = end[n];
            if (e <= n || e > size)
                break;                                  /* malformed: step() says so */
            skipped += e - n - 1;
            n = e;
            continue;
        }
        if (UNLIKELY(ends[t] & LAZY_ENDS))
            break;                                      /* a lazy lexeme ends: advance */
        /* walk.py: tok = token[n]; if tok >= 0: allowed[tok] = 1 — the common cases are
           -1 <= tok < len(allowed) */
        const int32_t tok = token[n];
        const uint32_t tok1 = (uint32_t)tok + 1u;      /* 0 for NO_TOKEN (-1) */
        if (UNLIKELY(tok1 > allowed_len))
            break;                                      /* several tokens, or an error */
        {   /* allowed[tok] = 1, or sink = 1 for no token: a select, not a branch */
            const uintptr_t mask = (uintptr_t)0 - (uintptr_t)(tok1 != 0);
            const uintptr_t at = (uintptr_t)allowed + (uint32_t)tok;  /* integers: no pointer past the end */
            uint8_t *flag = (uint8_t *)((at & mask) | ((uintptr_t)&sink & ~mask));
            *flag = 1;
        }
        /* walk.py: states[d] = t; n += 1 */
        states[d] = t;
        n += 1;
    }
    w->n = n;
    w->skipped = skipped;
    w->sp = sp;
    w->last = last;
}

/* The body of walk.py's `walk` once the buffers are held: the nodes walked, or -1 with
   an exception (-1 is also walk.py's answer for a trie with no root: then no exception). */
static Py_ssize_t
run(Walk *w, long state, Py_ssize_t top)
{
    /* walk.py: size = len(byte) (the other arrays must be as long) */
    w->size = w->byte.len;
    if (w->depth.len < w->size || w->end.len < w->size || w->token.len < w->size
        || w->below.len < w->size || w->first.len < w->size + 1) {
        PyErr_Format(PyExc_ValueError, "malformed trie: byte has %zd nodes, depth %zd, end %zd, token %zd, "
                     "below %zd, first %zd", w->size, w->depth.len, w->end.len, w->token.len, w->below.len,
                     w->first.len);
        return -1;
    }
    /* walk.py: states[0] = state; scan_depths = [0]; scan_tops = [top]; last = 0;
       n = 1; skipped = 0 */
    w->states[0] = (int32_t)state;
    w->sp = 0;
    w->scan_depths[0] = 0;
    w->scan_tops[0] = top;
    w->serials[0] = w->serial = 0;
    w->last = 0;
    w->n = 1;
    w->skipped = 0;
    /* walk.py: while n < size: (the loop body) */
    for (;;) {
        fast_run(w);
        if (w->n >= w->size)
            break;
        if (step(w) < 0)
            return -1;
    }
    /* walk.py: return size - 1 - skipped */
    return w->size - 1 - w->skipped;
}

/* a->owner = obj.attribute, a strong reference (walk.py's local aliases); `name` is for errors. */
static int
get_array(Array *a, PyObject *obj, const char *attribute, const char *name)
{
    a->name = name;
    a->owner = get_attr(obj, attribute);
    return a->owner == NULL ? -1 : 0;
}

PyDoc_STRVAR(walk_doc,
"walk(trie, lexer, parser, state, top, allowed) -> int\n\n"
"Set allowed[t] = 1 for every token t whose bytes can follow (state, top); return the\n"
"number of trie nodes walked. The C version of refimpl.masks.walk.walk, identical in\n"
"its results, its callbacks and its count.");

static PyObject *
native_walk(PyObject *module, PyObject *const *argv, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    static char *kwlist[] = {"trie", "lexer", "parser", "state", "top", "allowed", NULL};
    PyObject *trie, *lexer, *parser, *state_obj, *top_obj, *allowed;
    if (kwnames == NULL && nargs == 6) {  /* the matcher's call: six positional arguments */
        trie = argv[0], lexer = argv[1], parser = argv[2], state_obj = argv[3], top_obj = argv[4], allowed = argv[5];
    } else {  /* keywords, or a wrong count: parsed (and refused) as a keyword call is */
        PyObject *args = PyTuple_New(nargs), *kwargs = NULL;
        for (Py_ssize_t i = 0; args != NULL && i < nargs; i++) {
            Py_INCREF(argv[i]);
            PyTuple_SET_ITEM(args, i, argv[i]);
        }
        const Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
        if (args != NULL && nkw > 0 && (kwargs = PyDict_New()) != NULL) {
            for (Py_ssize_t i = 0; i < nkw; i++)
                if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), argv[nargs + i]) < 0) {
                    Py_CLEAR(kwargs);
                    break;
                }
        }
        int ok = args != NULL && (nkw == 0 || kwargs != NULL)
            && PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOO:walk", kwlist,
                                           &trie, &lexer, &parser, &state_obj, &top_obj, &allowed);
        Py_XDECREF(args);  /* the objects parsed out stay alive: argv holds them */
        Py_XDECREF(kwargs);
        if (!ok)
            return NULL;
    }

    Walk w;
    memset(&w, 0, sizeof w);
    PyObject *result = NULL;
    w.trie = trie;  /* borrowed: the caller holds it for the call */
    w.parser = parser;
    w.allowed.owner = allowed;
    Py_INCREF(allowed);
    w.allowed.name = "allowed";

    /* walk.py's aliases: byte, end, depth, token; table, fill, ends */
    if (get_array(&w.byte, trie, "byte", "trie.byte") < 0 || get_array(&w.depth, trie, "depth", "trie.depth") < 0
        || get_array(&w.end, trie, "end", "trie.end") < 0 || get_array(&w.token, trie, "token", "trie.token") < 0
        || get_array(&w.table, lexer, "table", "lexer.table") < 0
        || get_array(&w.ends, lexer, "ends", "lexer.ends") < 0)
        goto done;
    w.fill = get_attr(lexer, "fill");
    if (w.fill == NULL)
        goto done;
    w.loop = get_attr(lexer, "loop");
    if (w.loop == NULL || get_array(&w.loop_of, lexer, "loop_of", "lexer.loop_of") < 0
        || get_array(&w.escape_words, lexer, "escape_words", "lexer.escape_words") < 0)
        goto done;
    /* trie.subtrees(): its memo `_subtrees` once built (a call costs more than the read) */
    PyObject *sub = get_attr(trie, "_subtrees");
    if (sub == NULL && PyErr_ExceptionMatches(PyExc_AttributeError))
        PyErr_Clear();  /* a trie without the memo: the method */
    else if (sub == NULL)
        goto done;
    if (sub == NULL || sub == Py_None) {
        Py_XDECREF(sub);
        PyObject *subtrees = name_of("subtrees");
        sub = subtrees == NULL ? NULL : PyObject_CallMethodNoArgs(trie, subtrees);
        if (sub == NULL)
            goto done;
    }
    int sub_err = get_array(&w.below, sub, "below", "trie.subtrees().below") < 0
        || get_array(&w.set_words, sub, "byte_set_words", "trie.subtrees().byte_set_words") < 0
        || get_array(&w.subtree_tokens, sub, "tokens", "trie.subtrees().tokens") < 0
        || get_array(&w.first, sub, "first", "trie.subtrees().first") < 0;
    Py_DECREF(sub);
    if (sub_err)
        goto done;
    w.advance = get_attr(parser, "advance");
    w.restart = w.advance == NULL ? NULL : get_attr(parser, "restart");
    if (w.restart == NULL)
        goto done;
    if (!PyCallable_Check(w.advance) || !PyCallable_Check(w.restart)) {
        PyErr_SetString(PyExc_TypeError, "parser.advance and parser.restart must be callable");
        goto done;
    }

    long state = as_state(state_obj, "state");
    if (state < 0)
        goto done;
    Py_ssize_t top;
    if (as_top(top_obj, "top", &top) < 0)
        goto done;

    /* walk.py: states = [0] * (trie.max_depth + 1) */
    PyObject *md = get_attr(trie, "max_depth");
    if (md == NULL)
        goto done;
    w.max_depth = PyLong_Check(md) ? PyLong_AsLong(md) : -2;
    Py_DECREF(md);
    if (w.max_depth == -1 && PyErr_Occurred())
        goto done;
    if (w.max_depth < 0 || w.max_depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "trie.max_depth must be an int in 0..65535");
        goto done;
    }
    /* the four per-depth arrays in one block (the widest first, each aligned): walk_free frees it */
    const size_t depths = (size_t)w.max_depth + 1;
    char *block = PyMem_Calloc(depths, sizeof *w.serials + sizeof *w.scan_tops + sizeof *w.states
                               + sizeof *w.scan_depths);
    if (block == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    w.serials = (uint64_t *)block;
    w.scan_tops = (Py_ssize_t *)(block + depths * sizeof *w.serials);
    w.states = (int32_t *)(block + depths * (sizeof *w.serials + sizeof *w.scan_tops));
    w.scan_depths = w.states + depths;

    if (array_acquire(&w.byte, 'B', 1, 0) < 0 || array_acquire(&w.depth, 'H', 2, 0) < 0
        || array_acquire(&w.end, 'i', 4, 0) < 0 || array_acquire(&w.token, 'i', 4, 0) < 0
        || array_acquire(&w.below, 'i', 4, 0) < 0 || array_acquire(&w.set_words, 'Q', 8, 0) < 0
        || array_acquire(&w.subtree_tokens, 'i', 4, 0) < 0 || array_acquire(&w.first, 'i', 4, 0) < 0
        || array_acquire(&w.allowed, 'B', 1, 1) < 0 || lexer_acquire(&w) < 0)
        goto done;

    Py_ssize_t walked = run(&w, state, top);
    const int failed = walked == -1 && PyErr_Occurred();
    if (short_taken(&w) == 0 && !failed)
        result = PyLong_FromSsize_t(walked);
done:
    walk_free(&w);
    return result;
}

PyDoc_STRVAR(closure_doc,
"closure(tables, rows, j, seeds, transitive) -> (items, waiting, allowed, accepting) or None\n\n"
"refimpl.recognition.earley.closure in C: the same answer, or None where it leaves the\n"
"row to that function (unusual types, a row past the items_per_row limit).");

static PyObject *
native_closure(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "closure() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    /* the seeds as C ints (a list of ints below 2^62; anything else is Python's) */
    PyObject *seeds = args[3];
    if (!PyList_CheckExact(seeds))
        Py_RETURN_NONE;
    const Py_ssize_t n_seeds = PyList_GET_SIZE(seeds);
    int64_t *values = PyMem_Malloc((size_t)(n_seeds ? n_seeds : 1) * sizeof *values);
    if (values == NULL)
        return PyErr_NoMemory();
    int r = 0;
    for (Py_ssize_t i = 0; i < n_seeds && r == 0; i++)
        r = small_int(PyList_GET_ITEM(seeds, i), ITEM_MAX, &values[i]);
    PyObject *result = r < 0 ? NULL : r ? (Py_INCREF(Py_None), Py_None)
        : closure_of(args[0], args[1], args[2], values, n_seeds, args[4], 0);
    PyMem_Free(values);
    return result;
}

static PyMethodDef native_methods[] = {
    {"walk", (PyCFunction)(void (*)(void))native_walk, METH_FASTCALL | METH_KEYWORDS, walk_doc},
    {"closure", (PyCFunction)(void (*)(void))native_closure, METH_FASTCALL, closure_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    "accel._native",
    "The trie walk of refimpl/masks/walk.py in C (the \"native\" backend).",
    0,
    native_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    return PyModule_Create(&native_module);
}
