/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base/prom.c - Prometheus' text format (base/prom.h). */
#include <math.h>

#include "src/libcosched/base/prom.h"

void cosched_prom_family(FILE *out, const char *name, const char *type,
			 const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_value(FILE *out, const char *v)
{
	for (const unsigned char *p = (const unsigned char *) (v ? v : "");
	     *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p >= 0x7f)
			fputc('?', out);
		else
			fputc(*p, out);
	}
}

void cosched_prom_sample(FILE *out, const char *name,
			 const cosched_prom_label_t *labels, size_t n,
			 double value)
{
	fputs(name, out);
	if (n) {
		fputc('{', out);
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%s%s=\"", i ? "," : "", labels[i].name);
			put_value(out, labels[i].value);
			fputc('"', out);
		}
		fputc('}', out);
	}
	if (isnan(value))
		fputs(" NaN\n", out);
	else if (isinf(value))
		fputs(value > 0 ? " +Inf\n" : " -Inf\n", out);
	else
		fprintf(out, " %.15g\n", value);
}
