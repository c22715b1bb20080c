/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/text.c - trimming, and quoting untrusted text for logs. */
#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "src/libcosched/base/number.h"
#include "src/libcosched/base/text.h"

size_t cosched_text_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

size_t cosched_text_put(char *buf, size_t len, size_t at, const char *src)
{
	return at >= len ? at :
	       at + cosched_text_copy(buf + at, len - at, src);
}

size_t cosched_text_put_int(char *buf, size_t len, size_t at, long long v)
{
	char digits[COSCHED_DECIMAL_MAX];

	cosched_decimal(digits, v);
	return cosched_text_put(buf, len, at, digits);
}

size_t cosched_text_put_fixed(char *buf, size_t len, size_t at, double v,
			      int decimals)
{
	char text[COSCHED_FIXED_MAX];

	cosched_fixed(text, v, decimals);
	return cosched_text_put(buf, len, at, text);
}

char *cosched_trim(char *s)
{
	char *e;

	while (isspace((unsigned char) *s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		e--;
	*e = '\0';
	return s;
}

/* Append one escaped byte; returns the bytes written (0: no room). */
static size_t escape_byte(char *out, size_t room, unsigned char c)
{
	char tmp[5];
	size_t n;

	switch (c) {
	case '\n':
		n = 2, memcpy(tmp, "\\n", 2);
		break;
	case '\t':
		n = 2, memcpy(tmp, "\\t", 2);
		break;
	case '\r':
		n = 2, memcpy(tmp, "\\r", 2);
		break;
	case '\\':
	case '"':
		tmp[0] = '\\', tmp[1] = (char) c, n = 2;
		break;
	default:
		if (c >= 0x20 && c < 0x7f) {
			tmp[0] = (char) c, n = 1;
		} else {
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			n = 4;
		}
	}
	if (n >= room)
		return 0;
	memcpy(out, tmp, n);
	return n;
}

char *cosched_quote(char *buf, size_t len, const char *s)
{
	size_t at = 0, in = 0, slen;

	if (!buf || len == 0)
		return buf;
	if (!s) {
		snprintf(buf, len, "(null)");
		return buf;
	}
	slen = strlen(s);
	if (len < 3) {
		buf[0] = '\0';
		return buf;
	}
	buf[at++] = '"';
	/* Leave room for the closing quote and the cut marker. */
	for (; in < slen && in < COSCHED_QUOTE_CHARS; in++) {
		size_t n = escape_byte(buf + at, len - at - 1,
				       (unsigned char) s[in]);
		if (!n)
			break;
		at += n;
	}
	buf[at++] = '"';
	buf[at] = '\0';
	if (in < slen)
		snprintf(buf + at, len - at, "...(%zu bytes)", slen);
	return buf;
}

size_t cosched_name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char) *s++) * 1099511628211ull;
	return (size_t) h;
}
