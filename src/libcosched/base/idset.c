/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idset.c - sets of small ids and their range-list text
 * (base/idset.h).
 */
#include <stdio.h>
#include <string.h>

#include "src/libcosched/base/idset.h"
#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

#define WORDS (sizeof(((cosched_idset_t *) 0)->bits) / sizeof(uint64_t))

void cosched_idset_clear(cosched_idset_t *s)
{
	memset(s, 0, sizeof(*s));
}

int cosched_idset_add(cosched_idset_t *s, int id, cosched_error_t *err)
{
	if (id < 0 || id >= COSCHED_IDSET_MAX)
		return cosched_error_set(err, "id %d out of range (0 <= id < %d)",
					 id, COSCHED_IDSET_MAX);
	s->bits[id / 64] |= UINT64_C(1) << (id % 64);
	return 0;
}

bool cosched_idset_has(const cosched_idset_t *s, int id)
{
	if (id < 0 || id >= COSCHED_IDSET_MAX)
		return false;
	return (s->bits[id / 64] >> (id % 64)) & 1;
}

bool cosched_idset_empty(const cosched_idset_t *s)
{
	for (size_t i = 0; i < WORDS; i++)
		if (s->bits[i])
			return false;
	return true;
}

int cosched_idset_count(const cosched_idset_t *s)
{
	int n = 0;

	for (size_t i = 0; i < WORDS; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

/* The first id >= from whose bit is want (set or clear), else
 * COSCHED_IDSET_MAX: a word at a time, since every decision record
 * formatted walks three sets per node. */
static int first_from(const cosched_idset_t *s, int from, bool want)
{
	if (from < 0)
		from = 0;
	for (int w = from / 64; w < (int) WORDS; w++) {
		uint64_t bits = want ? s->bits[w] : ~s->bits[w];

		if (w == from / 64)
			bits &= ~0ull << (from % 64);
		if (bits)
			return w * 64 + __builtin_ctzll(bits);
	}
	return COSCHED_IDSET_MAX;
}

int cosched_idset_next(const cosched_idset_t *s, int from)
{
	int id = first_from(s, from, true);

	return id < COSCHED_IDSET_MAX ? id : -1;
}

bool cosched_idset_overlap(const cosched_idset_t *a, const cosched_idset_t *b)
{
	for (size_t i = 0; i < WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

char *cosched_idset_format(const cosched_idset_t *s, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (int id = first_from(s, 0, true); id < COSCHED_IDSET_MAX;
	     id = first_from(s, id + 1, true)) {
		/* ",ID-ID" of any two ints, by hand (a decision record
		 * lists three id sets a node, for every job started). */
		char range[2 * COSCHED_DECIMAL_MAX + 2];
		size_t n = 0;
		int end = first_from(s, id, false) - 1;

		if (at)
			range[n++] = ',';
		n += cosched_decimal(range + n, id);
		if (end > id) {
			range[n++] = '-';
			n += cosched_decimal(range + n, end);
		}
		if (n >= len - at) {
			n = len - at - 1;	/* cut, still terminated */
			memcpy(buf + at, range, n);
			buf[at + n] = '\0';
			return buf;
		}
		memcpy(buf + at, range, n + 1);
		at += n;
		id = end;
	}
	return buf;
}

/* One id of a range list at *s (digits, no leading zero, < IDSET_MAX);
 * advances *s.  Returns the id, -1 when there is no number, -2 when it is
 * out of range. */
static int scan_id(const char **s)
{
	size_t n = strspn(*s, "0123456789");
	int v = 0;

	if (!n)
		return -1;
	if (n > 1 && **s == '0')
		return -1;
	if (n >= 8) {
		*s += n;
		return -2;
	}
	for (size_t i = 0; i < n; i++)
		v = v * 10 + ((*s)[i] - '0');
	*s += n;
	return v < COSCHED_IDSET_MAX ? v : -2;
}

int cosched_idset_parse_in(const char *field, const char *context,
			   const char *list, cosched_idset_t *set,
			   cosched_error_t *err)
{
	const char *s = list;
	int prev_lo = -1, prev_end = -1;
	cosched_idset_t tmp;

	cosched_idset_clear(&tmp);
	while (*s) {
		bool dash = false;
		int lo, hi;

		if (prev_end >= 0 && *s++ != ',')
			goto bad;
		lo = hi = scan_id(&s);
		if (lo >= 0 && *s == '-') {
			s++;
			hi = scan_id(&s);
			dash = true;
		}
		if (lo == -2 || hi == -2)
			return cosched_error_set(err,
				"%s: id out of range (0 <= id < %d) in %s", field,
				COSCHED_IDSET_MAX, COSCHED_QUOTE(context));
		if (lo < 0 || hi < 0)
			goto bad;
		if (hi < lo || lo < prev_lo)
			return cosched_error_set(err,
				"%s: range list not sorted in %s", field,
				COSCHED_QUOTE(context));
		if (lo <= prev_end)
			return cosched_error_set(err,
				"%s: ranges overlap in %s", field,
				COSCHED_QUOTE(context));
		if (dash && hi == lo)
			return cosched_error_set(err,
				"%s: range %d-%d not written as %d in %s", field,
				lo, hi, lo, COSCHED_QUOTE(context));
		if (lo == prev_end + 1 && prev_end >= 0)
			return cosched_error_set(err,
				"%s: ranges not merged (%d follows %d) in %s",
				field, lo, prev_end, COSCHED_QUOTE(context));
		for (int id = lo; id <= hi; id++)
			cosched_idset_add(&tmp, id, NULL);
		prev_lo = lo;
		prev_end = hi;
	}
	*set = tmp;
	return 0;
bad:
	return cosched_error_set(err,
		"%s: invalid range list in %s (expected NODE:ID[-ID],...)", field,
		COSCHED_QUOTE(context));
}

int cosched_idset_parse(const char *field, const char *list,
			cosched_idset_t *set, cosched_error_t *err)
{
	return cosched_idset_parse_in(field, list, list, set, err);
}
