/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h for compiling against Slurm's internal headers out of tree.
 *
 * Slurm's headers include "config.h" from its own build.  Nothing in a
 * struct the plugins use depends on it (checked against 22.05); what does
 * matter is how symbols are named and whether xassert() is compiled in, so
 * this mirrors Debian's build (configure --disable-debug on Linux).
 */
#ifndef COSCHED_SLURM_COMPAT_CONFIG_H
#define COSCHED_SLURM_COMPAT_CONFIG_H

/* Linux: plugins call slurm_error() etc., the names libslurmfull exports
 * (see src/common/slurm_xlator.h). */
#define USE_ALIAS 1

/* Debian builds without debugging: xassert() compiles to nothing. */
#ifndef NDEBUG
#define NDEBUG 1
#endif

#endif
