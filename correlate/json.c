/* Minimal JSON reading: member iteration over one object, string decoding. Bounded depth. */
#include <errno.h>
#include <string.h>

#include "json.h"

static size_t skip_ws(struct word t, size_t i)
{
	while (i < t.len && (t.s[i] == ' ' || t.s[i] == '\t' || t.s[i] == '\n' || t.s[i] == '\r'))
		i++;
	return i;
}

/* Index just past the string starting at t.s[i] == '"', or 0 when unterminated. */
static size_t skip_string(struct word t, size_t i)
{
	for (i++; i < t.len; i++) {
		if (t.s[i] == '\\')
			i++;
		else if (t.s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* Index just past the value starting at i, or 0 on malformed input. */
static size_t skip_value(struct word t, size_t i, int depth)
{
	char open, close;

	i = skip_ws(t, i);
	if (i >= t.len || depth > JSON_DEPTH_MAX)
		return 0;
	if (t.s[i] == '"')
		return skip_string(t, i);
	if (t.s[i] == '{' || t.s[i] == '[') {
		open = t.s[i];
		close = open == '{' ? '}' : ']';
		i = skip_ws(t, i + 1);
		if (i < t.len && t.s[i] == close)
			return i + 1;
		for (;;) {
			if (open == '{') {
				i = skip_ws(t, i);
				if (i >= t.len || t.s[i] != '"' || !(i = skip_string(t, i)))
					return 0;
				i = skip_ws(t, i);
				if (i >= t.len || t.s[i] != ':')
					return 0;
				i++;
			}
			if (!(i = skip_value(t, i, depth + 1)))
				return 0;
			i = skip_ws(t, i);
			if (i < t.len && t.s[i] == ',') {
				i++;
				continue;
			}
			return i < t.len && t.s[i] == close ? i + 1 : 0;
		}
	}
	/* a number, true, false or null */
	if (!t.s[i] || !strchr("-0123456789tfn", t.s[i])) /* strchr finds the NUL too */
		return 0;
	while (i < t.len && !strchr(",}] \t\r\n", t.s[i]))
		i++;
	return i;
}

int json_next_member(struct word obj, size_t *pos, struct word *key, struct word *val)
{
	size_t i = *pos, end;

	if (i == 0) {
		i = skip_ws(obj, 0);
		if (i >= obj.len || obj.s[i] != '{')
			return -EINVAL;
		i = skip_ws(obj, i + 1);
		if (i < obj.len && obj.s[i] == '}') {
			*pos = obj.len;
			return 0;
		}
	} else {
		i = skip_ws(obj, i);
		if (i >= obj.len)
			return 0;
		if (obj.s[i] == '}') {
			*pos = obj.len;
			return 0;
		}
		if (obj.s[i] != ',')
			return -EINVAL;
		i = skip_ws(obj, i + 1);
	}
	if (i >= obj.len || obj.s[i] != '"' || !(end = skip_string(obj, i)))
		return -EINVAL;
	key->s = obj.s + i;
	key->len = end - i;
	i = skip_ws(obj, end);
	if (i >= obj.len || obj.s[i] != ':')
		return -EINVAL;
	i = skip_ws(obj, i + 1);
	if (!(end = skip_value(obj, i, 1)))
		return -EINVAL;
	val->s = obj.s + i;
	val->len = end - i;
	*pos = end;
	return 1;
}

int json_get(struct word obj, const char *key, struct word *val)
{
	struct word k, v;
	size_t pos = 0, kl = strlen(key);
	int rc;

	while ((rc = json_next_member(obj, &pos, &k, &v)) == 1)
		if (k.len == kl + 2 && memcmp(k.s + 1, key, kl) == 0) {
			*val = v;
			return 0;
		}
	return rc < 0 ? rc : -ENOENT;
}

int json_string(struct word raw, char *buf, size_t size)
{
	size_t i, o = 0;
	char c;

	if (raw.len < 2 || raw.s[0] != '"' || raw.s[raw.len - 1] != '"' || !size)
		return -EINVAL;
	for (i = 1; i + 1 < raw.len; i++) {
		c = raw.s[i];
		if (c == '\\' && i + 2 < raw.len) {
			c = raw.s[++i];
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u':
				if (i + 4 < raw.len && raw.s[i + 1] == '0' && raw.s[i + 2] == '0' &&
				    raw.s[i + 3] < '8') {
					unsigned v = 0, k;

					for (k = 1; k <= 4; k++) {
						char h = raw.s[i + k];

						v = v * 16 +
						    (unsigned)(h <= '9' ? h - '0'
									: (h | 0x20) - 'a' + 10);
					}
					c = (char)(v & 0x7f);
				} else {
					c = '?';
				}
				i += i + 4 < raw.len ? 4 : 0;
				break;
			default:
				break; /* \" \\ \/ */
			}
		}
		if (o + 1 < size)
			buf[o++] = c;
	}
	buf[o] = 0;
	return 0;
}
