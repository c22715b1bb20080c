/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy_params.c - the bounds of the policies' parameters
 * (policy_params.h).
 */
#include "src/libcosched/conf/policy_params.h"

const cosched_range_t cosched_mrb_weight_range = { 0.0, 1.0, true };
const cosched_range_t cosched_mrb_threshold_range = { 0.0, 1000.0, true };
const cosched_range_t cosched_pack_demand_range = { 0.0, 1000.0, false };
