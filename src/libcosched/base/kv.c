/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv.c - the one codec of cosched's "key=value" lines
 * (base/kv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/libcosched/base/kv.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

/* Version numbers stay small: a bound keeps their text short. */
#define VERSION_PART_MAX 999999

/* ---- versions ---------------------------------------------------------- */

/* The decimal digits of v at *at (advanced), within end. */
static void put_unsigned(char **at, const char *end, unsigned v)
{
	char digits[COSCHED_DECIMAL_MAX];
	size_t n = cosched_decimal(digits, v);

	for (size_t i = 0; i < n && *at < end; i++)
		*(*at)++ = digits[i];
}

/* By hand, not snprintf: slurmctld makes this text for every record it
 * writes or edits (1,100 instructions by snprintf). */
char *cosched_kv_version_text(const char *tag, cosched_kv_version_t v,
			      char *buf, size_t len)
{
	size_t tlen = strlen(tag);
	char *at = buf, *end;

	if (!len)
		return buf;
	end = buf + len - 1;
	tlen = tlen < len - 1 ? tlen : len - 1;
	memcpy(at, tag, tlen);
	at += tlen;
	put_unsigned(&at, end, v.major);
	if (v.minor && at < end) {
		*at++ = '.';
		put_unsigned(&at, end, v.minor);
	}
	*at = '\0';
	return buf;
}

bool cosched_kv_version_newer_minor(cosched_kv_version_t v,
				    cosched_kv_version_t own)
{
	return v.major == own.major && v.minor > own.minor;
}

/* One part of a version: digits, no leading zero; advances *s. */
static int version_part(const char **s, unsigned *out)
{
	size_t n = strspn(*s, "0123456789");
	unsigned long v = 0;

	if (!n || n > 6 || (n > 1 && **s == '0'))
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long) ((*s)[i] - '0');
	*s += n;
	*out = (unsigned) v;
	return 0;
}

int cosched_kv_version_read(const char *what, const char *reader,
			    const char *tag, const char *text,
			    cosched_kv_version_t own,
			    cosched_kv_version_t *seen, cosched_error_t *err)
{
	cosched_kv_version_t v = { 0, 0 };
	const char *s = text;

	if (version_part(&s, &v.major) ||
	    (*s == '.' && (s++, version_part(&s, &v.minor))) || *s)
		return cosched_error_set(err,
			"%s schema: invalid version %s (MAJOR[.MINOR], decimal, no leading zero; %s reads %s%u.x)",
			what, COSCHED_QUOTE(text), reader, tag, own.major);
	if (v.major != own.major)
		return cosched_error_set(err,
			"%s schema %s%u.%u is %s than %s understands (%s%u.x)", what,
			tag, v.major, v.minor,
			v.major > own.major ? "newer" : "older", reader, tag,
			own.major);
	*seen = v;
	return 0;
}

static cosched_kv_note_fn note_hook;

void cosched_kv_set_note_hook(cosched_kv_note_fn fn)
{
	__atomic_store_n(&note_hook, fn, __ATOMIC_RELEASE);
}

void cosched_kv_note_skipped(const char *what, const char *tag,
			     cosched_kv_version_t seen,
			     cosched_kv_version_t own, int skipped)
{
	/* The tags already said; a process reads a handful of kinds. */
	static const char *said[8];
	cosched_kv_note_fn fn = __atomic_load_n(&note_hook, __ATOMIC_ACQUIRE);
	char a[32], b[32], msg[COSCHED_ERROR_MSG_LEN];
	size_t i;

	if (!fn || skipped <= 0)
		return;
	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		const char *none = NULL;

		if (__atomic_compare_exchange_n(&said[i], &none, tag, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;		/* first time for tag */
		if (none == tag || !strcmp(none, tag))
			return;		/* said */
	}
	snprintf(msg, sizeof(msg),
		 "%s %s is newer than this reader's (%s): skipped %d key%s or line%s it does not know",
		 what, cosched_kv_version_text(tag, seen, a, sizeof(a)),
		 cosched_kv_version_text(tag, own, b, sizeof(b)), skipped,
		 skipped == 1 ? "" : "s", skipped == 1 ? "" : "s");
	fn(msg);
}

/* ---- reading ----------------------------------------------------------- */

void cosched_kv_begin(cosched_kv_reader_t *r, char *line, const char *what)
{
	r->p = line;
	r->started = false;
	r->sep_eaten = false;
	r->what = what;
	r->fields = 0;
}

/* Step over the separator to the next token: 1 there, 0 at the end of
 * the line, -1 on a bad separator. */
static int to_token(cosched_kv_reader_t *r, cosched_error_t *err)
{
	if (!r->started) {
		r->started = true;
		if (!*r->p)
			return 0;
	} else if (r->sep_eaten) {
		r->sep_eaten = false;
	} else {
		if (!*r->p)
			return 0;
		r->p++;		/* the blank */
	}
	if (!*r->p)
		return cosched_error_set(err,
			"%s: trailing bytes: a blank at the end of the line",
			r->what);
	if (*r->p == ' ')
		return cosched_error_set(err,
			"%s: two blanks before %s (one between keys)", r->what,
			COSCHED_QUOTE(r->p + strspn(r->p, " ")));
	return 1;
}

/* End the bare token at tok (at its blank or the line's end). */
static void end_bare(cosched_kv_reader_t *r, char *tok)
{
	char *end = tok + strcspn(tok, " ");

	if (*end == ' ') {
		*end = '\0';
		r->p = end + 1;
		r->sep_eaten = true;
	} else {
		r->p = end;
	}
}

int cosched_kv_word(cosched_kv_reader_t *r, char **word,
		    cosched_error_t *err)
{
	int rc = to_token(r, err);

	if (rc < 0)
		return -1;
	if (!rc)
		return cosched_error_set(err, "%s: a word missing at the end of the line",
					 r->what);
	*word = r->p;
	end_bare(r, r->p);
	return 0;
}

static bool printable(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* A quoted value at value (its opening quote): checked whole first, so
 * that a message quotes it as written, then unescaped in place. */
static int read_quoted(cosched_kv_reader_t *r, const char *key, char *value,
		       cosched_error_t *err)
{
	char *q, *w;

	for (q = value + 1; *q != '"'; q++) {
		if (!*q)
			return cosched_error_set(err,
				"%s: unterminated quote in %s", key,
				COSCHED_QUOTE(value));
		if (*q == '\\') {
			char c = *++q;
			if (c != '"' && c != '\\') {
				char esc[3] = { '\\', c, '\0' };
				return cosched_error_set(err,
					"%s: invalid escape %s in %s (only \\\" and \\\\)",
					key, COSCHED_QUOTE(esc),
					COSCHED_QUOTE(value));
			}
		} else if (!printable((unsigned char) *q)) {
			return cosched_error_set(err,
				"%s: byte 0x%02x not allowed (printable ASCII only) in %s",
				key, (unsigned char) *q, COSCHED_QUOTE(value));
		}
	}
	if (q[1] && q[1] != ' ')
		return cosched_error_set(err,
			"%s: trailing bytes %s after the value", key,
			COSCHED_QUOTE(q + 1));
	r->p = q + 1;		/* the blank, or the end: untouched */
	w = value;
	for (char *s = value + 1; s < q; s++) {
		if (*s == '\\')
			s++;
		*w++ = *s;
	}
	*w = '\0';
	return 0;
}

int cosched_kv_next(cosched_kv_reader_t *r, cosched_kv_field_t *f,
		    cosched_error_t *err)
{
	char *eq;
	int rc = to_token(r, err);

	if (rc <= 0)
		return rc;
	f->key = r->p;
	eq = f->key + strcspn(f->key, "= ");
	if (*eq != '=') {
		*eq = '\0';
		return cosched_error_set(err,
			"%s: field %s has no value (expected KEY=VALUE)",
			r->what, COSCHED_QUOTE(f->key));
	}
	*eq = '\0';
	f->value = eq + 1;
	f->quoted = *f->value == '"';
	if (f->quoted) {
		if (read_quoted(r, f->key, f->value, err))
			return -1;
	} else {
		end_bare(r, f->value);
	}
	r->fields++;
	return 1;
}

/* The next field, key, bare or quoted as asked. */
static int expect_field(cosched_kv_reader_t *r, const char *key, bool quoted,
			char **value, cosched_error_t *err)
{
	int number = r->fields + 1;
	cosched_kv_field_t f;
	int rc = cosched_kv_next(r, &f, err);

	if (rc < 0)
		return -1;
	if (!rc)
		return cosched_error_set(err,
			"%s: expected %s= as field %d, found the end of the line",
			r->what, key, number + 1);
	if (strcmp(f.key, key))
		return cosched_error_set(err,
			"%s: expected %s= as field %d, found %s", r->what, key,
			number + 1, COSCHED_QUOTE(f.key));
	if (f.quoted && !quoted)
		return cosched_error_set(err,
			"%s: value %s is quoted (a bare value expected)", key,
			COSCHED_QUOTE(f.value));
	if (!f.quoted && quoted)
		return cosched_error_set(err,
			"%s: value %s is bare (a quoted value expected)", key,
			COSCHED_QUOTE(f.value));
	*value = f.value;
	return 0;
}

int cosched_kv_expect(cosched_kv_reader_t *r, const char *key, char **value,
		      cosched_error_t *err)
{
	return expect_field(r, key, false, value, err);
}

int cosched_kv_expect_quoted(cosched_kv_reader_t *r, const char *key,
			     char **value, cosched_error_t *err)
{
	return expect_field(r, key, true, value, err);
}

const char *cosched_kv_rest(const cosched_kv_reader_t *r)
{
	return r->p;
}

int cosched_kv_end(cosched_kv_reader_t *r, cosched_error_t *err)
{
	const char *rest = r->sep_eaten ? r->p : r->p + (*r->p == ' ');

	if (!*r->p && !r->sep_eaten)
		return 0;
	return cosched_error_set(err, "%s: more fields than expected: %s",
				 r->what, COSCHED_QUOTE(rest));
}

int cosched_kv_end_of(cosched_kv_reader_t *r, cosched_kv_version_t seen,
		      cosched_kv_version_t own, int *skipped,
		      cosched_error_t *err)
{
	cosched_kv_field_t f;
	int rc;

	if (!cosched_kv_version_newer_minor(seen, own))
		return cosched_kv_end(r, err);
	while ((rc = cosched_kv_next(r, &f, err)) > 0)
		(*skipped)++;
	return rc;
}

int cosched_kv_u64(const char *key, const char *value, uint64_t max,
		   uint64_t *out, cosched_error_t *err)
{
	size_t n = strlen(value);
	uint64_t v = 0;

	if (!n || n > 20 || (value[0] == '0' && n > 1) ||
	    strspn(value, "0123456789") != n)
		return cosched_error_set(err,
			"%s: invalid number %s (decimal digits, no sign or leading zero)",
			key, COSCHED_QUOTE(value));
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned) (value[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			goto range;
		v = v * 10 + d;
	}
	if (v > max)
		goto range;
	*out = v;
	return 0;
range:
	return cosched_error_set(err,
		"%s: value %s out of range (0 <= %s <= %llu)", key,
		COSCHED_QUOTE(value), key, (unsigned long long) max);
}

int cosched_kv_expect_u64(cosched_kv_reader_t *r, const char *key,
			  uint64_t max, uint64_t *out, cosched_error_t *err)
{
	char *v;

	if (cosched_kv_expect(r, key, &v, err))
		return -1;
	return cosched_kv_u64(key, v, max, out, err);
}

/* ---- writing ----------------------------------------------------------- */

void cosched_kv_out_fixed(cosched_kv_out_t *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->at = 0;
	o->over = len == 0;
	o->grows = false;
	if (len)
		buf[0] = '\0';
}

void cosched_kv_out_grow(cosched_kv_out_t *o)
{
	o->len = 4096;
	o->buf = malloc(o->len);
	o->at = 0;
	o->over = !o->buf;
	o->grows = true;
	if (o->buf)
		o->buf[0] = '\0';
}

char *cosched_kv_out_take(cosched_kv_out_t *o)
{
	char *text = o->buf;

	if (o->over) {
		free(text);
		text = NULL;
	}
	o->buf = NULL;
	return text;
}

/* Room for n more bytes and the terminator, growing when it may. */
static bool room(cosched_kv_out_t *o, size_t n)
{
	size_t len = o->len;
	char *nb;

	if (n < o->len - o->at)
		return true;
	if (!o->grows)
		return false;
	while (n >= len - o->at)
		len *= 2;
	nb = realloc(o->buf, len);
	if (!nb)
		return false;
	o->buf = nb;
	o->len = len;
	return true;
}

static void cosched_kv_put_mem(cosched_kv_out_t *o, const char *s, size_t n)
{
	if (o->over)
		return;
	if (!room(o, n)) {
		o->over = true;
		if (o->grows)
			return;
		n = o->len - o->at - 1;	/* what fits, terminated */
	}
	memcpy(o->buf + o->at, s, n);
	o->at += n;
	o->buf[o->at] = '\0';
}

void cosched_kv_put_str(cosched_kv_out_t *o, const char *s)
{
	cosched_kv_put_mem(o, s, strlen(s));
}

/* One vsnprintf where the text fits (a second only when a growing buffer
 * must grow first), and none for "%s": every decision record slurmctld
 * writes goes through here some twenty times. */
static void put_v(cosched_kv_out_t *o, const char *fmt, va_list ap)
{
	va_list again;
	size_t left;
	int n;

	if (o->over)
		return;
	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		cosched_kv_put_str(o, va_arg(ap, const char *));
		return;
	}
	left = o->len - o->at;
	va_copy(again, ap);
	n = vsnprintf(o->buf + o->at, left, fmt, ap);
	if (n < 0) {
		o->over = true;
		o->buf[o->at] = '\0';
	} else if ((size_t) n < left) {
		o->at += (size_t) n;
	} else if (!room(o, (size_t) n)) {
		/* A fixed buffer keeps what fitted, terminated; a growing
		 * one that could not grow is given up (over). */
		o->over = true;
		o->at = o->grows ? o->at : o->len - 1;
		if (o->grows)
			o->buf[o->at] = '\0';
	} else {
		vsnprintf(o->buf + o->at, o->len - o->at, fmt, again);
		o->at += (size_t) n;
	}
	va_end(again);
}

void cosched_kv_put_fmt(cosched_kv_out_t *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_v(o, fmt, ap);
	va_end(ap);
}

/* The blank before a field, unless it is the line's first, then "key="
 * and the vlen bytes of value: in one piece where it fits (a decision
 * record has some twenty fields), else a piece at a time, as much as
 * fits. */
static void field_put(cosched_kv_out_t *o, const char *key,
		      const char *value, size_t vlen)
{
	bool blank = o->at && o->buf[o->at - 1] != '\n';
	size_t k = strlen(key);

	if (o->over)
		return;
	if (room(o, blank + k + 1 + vlen)) {
		char *at = o->buf + o->at;

		if (blank)
			*at++ = ' ';
		memcpy(at, key, k);
		at[k] = '=';
		memcpy(at + k + 1, value, vlen);
		at[k + 1 + vlen] = '\0';
		o->at += blank + k + 1 + vlen;
		return;
	}
	if (blank)
		cosched_kv_put_mem(o, " ", 1);
	cosched_kv_put_mem(o, key, k);
	cosched_kv_put_mem(o, "=", 1);
	cosched_kv_put_mem(o, value, vlen);
}

/* The blank and "key=": the value follows. */
static void field_start(cosched_kv_out_t *o, const char *key)
{
	field_put(o, key, "", 0);
}

void cosched_kv_put(cosched_kv_out_t *o, const char *key, const char *fmt,
		    ...)
{
	va_list ap;

	field_start(o, key);
	va_start(ap, fmt);
	put_v(o, fmt, ap);
	va_end(ap);
}

void cosched_kv_put_key(cosched_kv_out_t *o, const char *key)
{
	field_start(o, key);
}

void cosched_kv_put_word(cosched_kv_out_t *o, const char *key,
			 const char *value)
{
	field_put(o, key, value, strlen(value));
}

void cosched_kv_put_int(cosched_kv_out_t *o, const char *key, long long v)
{
	char digits[COSCHED_DECIMAL_MAX];

	field_put(o, key, digits, cosched_decimal(digits, v));
}

void cosched_kv_put_quoted(cosched_kv_out_t *o, const char *key,
			   const char *value)
{
	field_start(o, key);
	cosched_kv_put_str(o, "\"");
	/* Runs without a byte to escape go in one piece. */
	for (const char *p = value; *p;) {
		size_t run = strcspn(p, "\"\\");

		cosched_kv_put_mem(o, p, run);
		p += run;
		if (*p) {
			cosched_kv_put_str(o, "\\");
			cosched_kv_put_mem(o, p++, 1);
		}
	}
	cosched_kv_put_str(o, "\"");
}
