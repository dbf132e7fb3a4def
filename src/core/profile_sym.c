/* SPDX-License-Identifier: MIT */
/* run --profile's symbol tables (profile_sym.h). */
#include "core/profile_sym.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/perf.h"

#if defined(__has_include)
#if __has_include(<elf.h>)
#include <elf.h>
#define HAVE_ELF_H 1
#endif
#endif

/* ---- interned names ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int names_grow(struct names *nm)
{
	int nc = nm->tabcap ? nm->tabcap * 2 : 1024;
	int *t = calloc((size_t)nc, sizeof(int));
	if (!t)
		return -1;
	for (int i = 0; i < nm->n; i++) {
		uint64_t h = hash_str(nm->s[i]) & (uint64_t)(nc - 1);
		while (t[h])
			h = (h + 1) & (uint64_t)(nc - 1);
		t[h] = i + 1;
	}
	free(nm->tab);
	nm->tab = t;
	nm->tabcap = nc;
	return 0;
}

int sym_name_id(struct names *nm, const char *s)
{
	if ((nm->n + 1) * 2 > nm->tabcap && names_grow(nm))
		return -1;
	uint64_t h = hash_str(s) & (uint64_t)(nm->tabcap - 1);
	while (nm->tab[h]) {
		if (!strcmp(nm->s[nm->tab[h] - 1], s))
			return nm->tab[h] - 1;
		h = (h + 1) & (uint64_t)(nm->tabcap - 1);
	}
	if (nm->n == nm->cap) {
		int nc = nm->cap ? nm->cap * 2 : 256;
		char **ns = realloc(nm->s, (size_t)nc * sizeof(char *));
		if (!ns)
			return -1;
		nm->s = ns;
		nm->cap = nc;
	}
	char *d = strdup(s);
	if (!d)
		return -1;
	nm->s[nm->n] = d;
	nm->tab[h] = ++nm->n;
	return nm->n - 1;
}

void sym_names_free(struct names *nm)
{
	for (int i = 0; i < nm->n; i++)
		free(nm->s[i]);
	free(nm->s);
	free(nm->tab);
	memset(nm, 0, sizeof(*nm));
}

/* ---- the kernel's symbols ---- */

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Address i of a table of symbols, or of the cache's mapped addresses. */
static uint64_t sym_addr(const void *t, int i)
{
	return ((const struct sym *)t)[i].addr;
}

static uint64_t mapped_addr(const void *t, int i)
{
	uint64_t a;
	memcpy(&a, (const unsigned char *)t + (size_t)i * 8, 8);
	return a;
}

/* The index of the greatest of n ascending addresses at or below addr,
 * -1 if none. */
static int floor_index(const void *t, int n, uint64_t addr, uint64_t (*at)(const void *, int))
{
	int lo = 0, hi = n - 1, found = -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (at(t, mid) <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* The greatest symbol at or below addr (size-checked when known), or NULL. */
const struct sym *sym_find(const struct sym *s, int n, uint64_t addr)
{
	int at = floor_index(s, n, addr, sym_addr);
	if (at < 0)
		return NULL;
	if (s[at].size && addr >= s[at].addr + s[at].size)
		return NULL;
	return &s[at];
}

/* The kernel's symbols are read once per run: the first profile parses
 * /proc/kallsyms (some 120,000 lines formatted by the kernel: ~85 ms of
 * CPU here, in every bench's worker) and leaves the sorted table in the
 * run's scratch directory (KSYMS_CACHE, mode 0600: kernel addresses are
 * for root), which the next benches' profiles read; a module loaded or
 * unloaded since (another /proc/modules) has the table read anew. The
 * file: the header, the n addresses, n name offsets, the names. */
#define KSYMS_CACHE "kallsyms.cache"
struct kcache_hdr {
	char magic[8];
	uint64_t n, names_len, modules;
};

static int ksyms_from_cache(struct ksyms *k, const char *dir, uint64_t modules)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" KSYMS_CACHE, dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return -1;
	struct kcache_hdr h;
	if (fstat(fd, &sb) || (size_t)sb.st_size <= sizeof(h)) {
		close(fd);
		return -1;
	}
	size_t len = (size_t)sb.st_size;
	void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	const unsigned char *buf = m;
	memcpy(&h, buf, sizeof(h));
	/* the names end with a NUL, so a name at any offset below names_len
	 * ends inside the map (offsets are checked at each lookup) */
	if (memcmp(h.magic, "SBKSYM1", 8) || !modules || h.modules != modules || !h.n ||
	    h.n > (1u << 24) || h.names_len > (1u << 28) ||
	    sizeof(h) + h.n * 12 + h.names_len != len || buf[len - 1] != 0) {
		munmap(m, len);
		return -1;
	}
	k->map = m;
	k->maplen = len;
	k->addr = buf + sizeof(h);
	k->off = k->addr + h.n * 8;
	k->names = (const char *)k->off + h.n * 4;
	k->names_len = h.names_len;
	k->n = (int)h.n;
	return 0;
}

/* The name of the greatest kernel symbol at or below addr, or NULL. */
const char *ksym_name(const struct ksyms *k, uint64_t addr)
{
	if (!k->map) {
		const struct sym *y = k->text ? sym_find(k->s, k->n, addr) : NULL;
		return y ? y->name : NULL;
	}
	int at = floor_index(k->addr, k->n, addr, mapped_addr);
	if (at < 0)
		return NULL;
	uint32_t o;
	memcpy(&o, k->off + (size_t)at * 4, 4);
	return o < k->names_len ? k->names + o : NULL;
}

static void ksyms_to_cache(const struct ksyms *k, const char *dir, uint64_t modules)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof(path), "%s/" KSYMS_CACHE, dir);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	struct kcache_hdr h = {.magic = "SBKSYM1", .n = (uint64_t)k->n, .modules = modules};
	for (int i = 0; i < k->n; i++)
		h.names_len += strlen(k->s[i].name) + 1;
	size_t len = sizeof(h) + h.n * 12 + h.names_len;
	unsigned char *b = malloc(len);
	if (!b)
		return;
	memcpy(b, &h, sizeof(h));
	size_t at = sizeof(h) + h.n * 12;
	for (int i = 0; i < k->n; i++) {
		uint32_t o = (uint32_t)(at - sizeof(h) - h.n * 12);
		memcpy(b + sizeof(h) + (size_t)i * 8, &k->s[i].addr, 8);
		memcpy(b + sizeof(h) + h.n * 8 + (size_t)i * 4, &o, 4);
		size_t l = strlen(k->s[i].name) + 1;
		memcpy(b + at, k->s[i].name, l);
		at += l;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int ok = fd >= 0;
	for (size_t w = 0; ok && w < len;) {
		ssize_t r = write(fd, b + w, len - w);
		ok = r > 0;
		w += ok ? (size_t)r : 0;
	}
	if (fd >= 0 && close(fd))
		ok = 0;
	if (!ok || rename(tmp, path))
		unlink(tmp);
	free(b);
}

static int ksyms_read(struct ksyms *k);

/* From the run's cache in dir (NULL: none), else from the kernel. */
int ksyms_load(struct ksyms *k, const char *dir)
{
	uint64_t modules = dir ? sys_kmodules_hash() : 0;
	if (modules && ksyms_from_cache(k, dir, modules) == 0)
		return 0;
	if (ksyms_read(k))
		return -1;
	if (modules)
		ksyms_to_cache(k, dir, modules);
	return 0;
}

static int ksyms_read(struct ksyms *k)
{
	k->text = sys_kallsyms(k->why, sizeof(k->why));
	if (!k->text)
		return -1;
	size_t cap = 1 << 16;
	k->s = malloc(cap * sizeof(*k->s));
	if (!k->s) {
		snprintf(k->why, sizeof(k->why), "out of memory");
		free(k->text);
		k->text = NULL;
		return -1;
	}
	for (char *l = k->text; *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char *end;
		uint64_t a = strtoull(l, &end, 16);
		if (end[0] == ' ' && end[1] && end[2] == ' ' && strchr("tTwW", end[1]) && a) {
			char *name = end + 3, *tab = strchr(name, '\t');
			if (tab)
				*tab = 0; /* "\t[module]": the name alone */
			if ((size_t)k->n == cap) {
				struct sym *ns = realloc(k->s, cap * 2 * sizeof(*k->s));
				if (!ns)
					break;
				k->s = ns;
				cap *= 2;
			}
			k->s[k->n++] = (struct sym){.addr = a, .name = name};
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	qsort(k->s, (size_t)k->n, sizeof(*k->s), cmp_sym);
	return 0;
}

/* ---- user symbols: ELF files ---- */

#ifdef HAVE_ELF_H
static void elf_syms(struct elfobj *o, const Elf64_Ehdr *eh, int want)
{
	const unsigned char *base = o->map;
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > o->len)
		return;
	const Elf64_Shdr *sh = (const void *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != (unsigned)want || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > o->len || st->sh_offset + st->sh_size > o->len ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Sym *sy = (const void *)(base + sh[i].sh_offset);
		size_t cnt = sh[i].sh_size / sizeof(Elf64_Sym);
		const char *str = (const char *)(base + st->sh_offset);
		struct sym *ns = realloc(o->s, ((size_t)o->n + cnt) * sizeof(*o->s));
		if (!ns)
			return;
		o->s = ns;
		for (size_t j = 0; j < cnt; j++) {
			int t = ELF64_ST_TYPE(sy[j].st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || !sy[j].st_value ||
			    sy[j].st_name >= st->sh_size)
				continue;
			o->s[o->n++] = (struct sym){.addr = sy[j].st_value, .size = sy[j].st_size,
						    .name = str + sy[j].st_name};
		}
	}
}
#endif

void sym_elf_load(struct elfobj *o)
{
#ifdef HAVE_ELF_H
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || (size_t)sb.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	o->map = m;
	o->len = (size_t)sb.st_size;
	const Elf64_Ehdr *eh = m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > o->len)
		return;
	const Elf64_Phdr *ph = (const void *)((const unsigned char *)m + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum && o->nseg < 16; i++)
		if (ph[i].p_type == PT_LOAD) {
			o->seg[o->nseg].off = ph[i].p_offset;
			o->seg[o->nseg].filesz = ph[i].p_filesz;
			o->seg[o->nseg].vaddr = ph[i].p_vaddr;
			o->nseg++;
		}
	elf_syms(o, eh, SHT_SYMTAB);
	if (!o->n)
		elf_syms(o, eh, SHT_DYNSYM);
	qsort(o->s, (size_t)o->n, sizeof(*o->s), cmp_sym);
#else
	(void)o;
#endif
}

void sym_elf_free(struct elfobj *o)
{
	if (o->map)
		munmap(o->map, o->len);
	free(o->s);
	free(o->path);
}

void ksyms_free(struct ksyms *k)
{
	free(k->text);
	free(k->s);
	if (k->map)
		munmap(k->map, k->maplen);
	memset(k, 0, sizeof(*k));
}
