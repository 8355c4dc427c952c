/* What both ends of a WebSocket share (websocket.h). */
#include "websocket.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

int hj_ws_accept(const char *key, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	char in[64];
	uint8_t md[SHA_DIGEST_LENGTH];
	size_t kn = strlen(key);
	if (kn != 24)
		return -1;
	memcpy(in, key, kn);
	memcpy(in + kn, guid, sizeof guid - 1);
	SHA1((const unsigned char *)in, kn + sizeof guid - 1, md);
	EVP_EncodeBlock((unsigned char *)out, md, sizeof md);
	return 0;
}

int hj_ws_has_token(const char *v, const char *t)
{
	size_t tn = strlen(t);
	while (*v) {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		size_t n = strcspn(v, ",");
		size_t m = n;
		while (m > 0 && (v[m - 1] == ' ' || v[m - 1] == '\t'))
			m--;
		if (m == tn && strncasecmp(v, t, tn) == 0)
			return 1;
		v += n;
	}
	return 0;
}

ssize_t hj_ws_take(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                   const uint8_t **in, size_t *n)
{
	if (*n == 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	size_t k = len < *n ? len : *n;
	memcpy(buf, *in, k);
	*in += k;
	*n -= k;
	return (ssize_t)k;
}
