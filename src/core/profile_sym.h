/* SPDX-License-Identifier: MIT */
/* run --profile's symbol tables (profile_sym.c): interned function names,
 * the kernel's symbols (/proc/kallsyms through sys/, cached once per run
 * in its scratch directory) and the ELF symbol tables of user files. Used
 * by profile.c, which turns samples into functions. */
#ifndef SB_PROFILE_SYM_H
#define SB_PROFILE_SYM_H

#include <stddef.h>
#include <stdint.h>

struct names {
	char **s;
	int n, cap;
	int *tab; /* open addressing: index + 1, 0 empty */
	int tabcap;
};

struct sym {
	uint64_t addr, size; /* size 0: up to the next symbol */
	const char *name;
};

struct ksyms {
	char *text; /* /proc/kallsyms, names pointing into it */
	struct sym *s;
	int n;
	char why[200]; /* when neither text nor map */
	/* or the run's cache file, mapped as it is (no parsing: the next
	 * benches' workers pay a page-cache map, not 120,000 lines) */
	void *map;
	size_t maplen;
	const unsigned char *addr, *off; /* n addresses (u64), n name offsets (u32) */
	const char *names;
	uint64_t names_len;
};

struct elfobj {
	char *path;
	void *map;
	size_t len;
	struct sym *s;
	int n;
	struct { uint64_t off, filesz, vaddr; } seg[16];
	int nseg;
};

/* the id of name s (interned: one copy), -1 out of memory */
int sym_name_id(struct names *nm, const char *s);
void sym_names_free(struct names *nm);
/* the greatest symbol at or below addr (size-checked when known), or NULL */
const struct sym *sym_find(const struct sym *s, int n, uint64_t addr);
/* the kernel's symbols: from the run's cache in dir (NULL: none), else
 * from the kernel (leaving the cache for the next benches); -1 with k->why */
int ksyms_load(struct ksyms *k, const char *dir);
/* the name of the greatest kernel symbol at or below addr, or NULL */
const char *ksym_name(const struct ksyms *k, uint64_t addr);
void ksyms_free(struct ksyms *k);
/* o->path's symbols and loadable segments (none when it is no ELF file) */
void sym_elf_load(struct elfobj *o);
void sym_elf_free(struct elfobj *o);

#endif
