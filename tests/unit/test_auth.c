/* SPDX-License-Identifier: MIT */
/* auth.c: HMAC-SHA256 against RFC 4231's test cases, hex round trips,
 * nonces that differ, and the constant-time comparison. */
#include <string.h>

#include "core/auth.h"
#include "t.h"

int main(void)
{
	char err[256], hex[AUTH_HEX];
	unsigned char mac[AUTH_MAC], back[AUTH_MAC];
	if (auth_load(err, sizeof(err))) {
		printf("test_auth: skipped: %s\n", err);
		return t_done("test_auth");
	}
	/* RFC 4231, test case 2: key "Jefe", the message split in two parts */
	const char *m1 = "what do ya ", *m2 = "want for nothing?";
	CHECK(auth_mac("Jefe", (const unsigned char *)m1, strlen(m1), (const unsigned char *)m2,
		       strlen(m2), mac) == 0, "hmac");
	auth_hex(mac, sizeof(mac), hex);
	CHECK(!strcmp(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "%s", hex);
	CHECK(auth_unhex(hex, back, sizeof(back)) == 0 && auth_equal(mac, back, sizeof(mac)), "unhex");
	back[31] ^= 1;
	CHECK(!auth_equal(mac, back, sizeof(mac)), "one bit differs");
	CHECK(auth_unhex("zz", back, 1) == -1, "not hex");
	CHECK(auth_unhex("abc", back, 1) == -1, "wrong length");
	/* an empty key is valid (serve on loopback without --key) */
	CHECK(auth_mac("", (const unsigned char *)"", 0, (const unsigned char *)"", 0, mac) == 0, "empty");
	auth_hex(mac, sizeof(mac), hex);
	CHECK(!strcmp(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"), "%s", hex);
	unsigned char a[AUTH_NONCE], b[AUTH_NONCE];
	CHECK(auth_random(a, sizeof(a)) == 0 && auth_random(b, sizeof(b)) == 0 && !auth_equal(a, b, sizeof(a)),
	      "two nonces differ");
	/* too long a message is refused, not truncated */
	unsigned char big[3 * AUTH_NONCE] = {0};
	CHECK(auth_mac("k", big, sizeof(big), big, sizeof(big), mac) == -1, "bounded");
	return t_done("test_auth");
}
