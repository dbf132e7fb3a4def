/* SPDX-License-Identifier: MIT */
/* The challenge-response of the serve protocol (version 2, docs/protocol.md):
 * HMAC-SHA256 and random nonces from OpenSSL's libcrypto, loaded with
 * dlopen on first use (so that processes that never authenticate, such as
 * proc.fork's forking process, do not map it). */
#ifndef SB_AUTH_H
#define SB_AUTH_H

#include <stddef.h>

#define AUTH_NONCE 32 /* bytes of a nonce */
#define AUTH_MAC 32   /* bytes of an HMAC-SHA256 */
#define AUTH_HEX (2 * AUTH_NONCE + 1)

/* Load libcrypto: 0, or -1 with a message naming the library and its
 * Debian package. */
int auth_load(char *err, size_t errlen);
/* n random bytes from libcrypto's generator: 0 or -1. */
int auth_random(unsigned char *buf, size_t n);
/* HMAC-SHA256(key, a || b) into mac (AUTH_MAC bytes): 0 or -1. */
int auth_mac(const char *key, const unsigned char *a, size_t alen, const unsigned char *b,
	     size_t blen, unsigned char *mac);
/* Comparison whose time does not depend on where the inputs differ. */
int auth_equal(const unsigned char *a, const unsigned char *b, size_t n);
/* Lower-case hex of n bytes into out (2n+1 bytes). */
void auth_hex(const unsigned char *in, size_t n, char *out);
/* Exactly 2n hex digits into n bytes: 0, or -1. */
int auth_unhex(const char *in, unsigned char *out, size_t n);

#endif
