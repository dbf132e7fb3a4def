/* SPDX-License-Identifier: MIT */
/* See auth.h. */
#include "core/auth.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define CRYPTO_SONAME "libcrypto.so.3"

static void *lib;
static const void *(*p_sha256)(void);
static unsigned char *(*p_hmac)(const void *md, const void *key, int klen, const unsigned char *d,
				size_t n, unsigned char *out, unsigned int *outlen);
static int (*p_rand)(unsigned char *buf, int n);

int auth_load(char *err, size_t errlen)
{
	if (lib)
		return 0;
	void *h = dlopen(CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen,
			 "the challenge-response needs OpenSSL's libcrypto: cannot load %s (Debian: "
			 "libssl3): %s", CRYPTO_SONAME, dlerror());
		return -1;
	}
	/* dlsym returns object pointers; POSIX guarantees they convert to
	 * function pointers, which the memcpy expresses without a warning */
	static const char *const names[3] = {"EVP_sha256", "HMAC", "RAND_bytes"};
	void *slot[3];
	for (int i = 0; i < 3; i++)
		if (!(slot[i] = dlsym(h, names[i]))) {
			snprintf(err, errlen, "%s lacks %s", CRYPTO_SONAME, names[i]);
			dlclose(h);
			return -1;
		}
	memcpy(&p_sha256, &slot[0], sizeof(slot[0]));
	memcpy(&p_hmac, &slot[1], sizeof(slot[1]));
	memcpy(&p_rand, &slot[2], sizeof(slot[2]));
	lib = h;
	return 0;
}

int auth_random(unsigned char *buf, size_t n)
{
	return lib && p_rand(buf, (int)n) == 1 ? 0 : -1;
}

int auth_mac(const char *key, const unsigned char *a, size_t alen, const unsigned char *b,
	     size_t blen, unsigned char *mac)
{
	unsigned char msg[4 * AUTH_NONCE];
	if (!lib || alen + blen > sizeof(msg))
		return -1;
	memcpy(msg, a, alen);
	memcpy(msg + alen, b, blen);
	unsigned int len = 0;
	/* an empty key is valid HMAC input; pass a non-null pointer for it */
	const char *k = key ? key : "";
	if (!p_hmac(p_sha256(), k, (int)strlen(k), msg, alen + blen, mac, &len) || len != AUTH_MAC)
		return -1;
	return 0;
}

int auth_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
	volatile unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

void auth_hex(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = 0;
}

static int nib(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int auth_unhex(const char *in, unsigned char *out, size_t n)
{
	if (strlen(in) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int h = nib(in[2 * i]), l = nib(in[2 * i + 1]);
		if (h < 0 || l < 0)
			return -1;
		out[i] = (unsigned char)(h << 4 | l);
	}
	return 0;
}
