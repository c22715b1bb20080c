/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * socket_index_room.c - a socket's room as the index holds it: its
 * cores, those used and whether it is available, without the rest of
 * gang_index_socket's copy.  The placement engine reads every unit's room
 * when no unit takes a job (the reason, the lenient least-bad unit), and
 * the copy of the category counts and load it does not read was most of
 * each read.
 */
#include "src/libcosched/policy/socket_index_internal.h"

int gang_index_socket_room(const cosched_socket_index_t *x, size_t s,
			   int *capacity, int *used)
{
	if (!x || s >= x->nsockets)
		return -1;
	*capacity = x->cap[s];
	*used = x->used[s];
	return x->avail[s] ? 1 : 0;
}
