/* SPDX-License-Identifier: MIT */
/* The tree compare_results (core/compare.h) gives, as a table for people. */
#ifndef SB_COMPARE_TEXT_H
#define SB_COMPARE_TEXT_H

#include <stdio.h>
#include <jansson.h>

void compare_print_text(const json_t *c, FILE *f);

#endif
