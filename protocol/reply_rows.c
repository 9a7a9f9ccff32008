/* A reply's big array left to its reader: a 100 000-process listing is handed on as its text,
 * for a reader that parses it a row at a time, instead of standing whole as a tree of objects
 * (hundreds of MB, and most of a report's time in malloc and free). The rest of the reply is
 * parsed and checked as any reply is. */
#include "protocol.h"

#include <errno.h>
#include <string.h>

static size_t skip_ws(const char *s, size_t i, size_t end)
{
	while (i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* the end of the string opened at s[i] (its closing quote's index), or end */
static size_t string_end(const char *s, size_t i, size_t end)
{
	for (i++; i < end; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i;
	}
	return end;
}

/* The end of the object or array opened at s[i]: the index of its closing bracket, or end.
 * Only brackets outside strings count; whether they pair up is the parser's to say. */
static size_t value_end(const char *s, size_t i, size_t end)
{
	int depth = 0;

	for (; i < end; i++) {
		if (s[i] == '"') {
			if ((i = string_end(s, i, end)) == end)
				return end;
		} else if (s[i] == '[' || s[i] == '{') {
			depth++;
		} else if ((s[i] == ']' || s[i] == '}') && --depth == 0) {
			return i;
		}
	}
	return end;
}

/* Find the top-level member key's array: [*from, *to) its contents, between '[' and its ']'.
 * 0, or -ENOENT when the reply has no such member as plain text (the caller then reads it from
 * the parsed tree). */
static int find_array(const char *s, size_t len, const char *key, size_t *from, size_t *to)
{
	size_t klen = strlen(key), i, e, j;
	int depth = 0, want_key = 0;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '"':
			if ((e = string_end(s, i, len)) == len)
				return -ENOENT;
			if (depth == 1 && want_key && e - i - 1 == klen &&
			    !memcmp(s + i + 1, key, klen)) {
				j = skip_ws(s, e + 1, len);
				if (j < len && s[j] == ':')
					j = skip_ws(s, j + 1, len);
				if (j < len && s[j] == '[') {
					if ((*to = value_end(s, j, len)) == len)
						return -ENOENT;
					*from = j + 1;
					return 0;
				}
			}
			want_key = 0;
			i = e;
			break;
		case '{':
		case '[':
			depth++;
			want_key = s[i] == '{';
			break;
		case '}':
		case ']':
			depth--;
			want_key = 0;
			break;
		case ',':
			want_key = 1;
			break;
		default:
			break;
		}
	}
	return -ENOENT;
}

/* the array of a parsed reply (a reply this reader could not split), handed on as its text */
static int rows_from_tree(struct json_object *reply, const struct proto_rows *rows, char *err,
			  size_t errlen)
{
	struct json_object *a;
	const char *text;
	size_t len;
	int ret;

	if (!json_object_object_get_ex(reply, rows->key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return 0;
	if (!(text = json_object_to_json_string_length(a, JSON_C_TO_STRING_PLAIN, &len)))
		return -ENOMEM;
	ret = rows->rows(rows->ctx, text, len, err, errlen);
	json_object_object_add(reply, rows->key, json_object_new_array());
	return ret;
}

int proto_parse_reply_rows(const char *line, size_t len, const struct proto_rows *rows,
			   struct json_object **out, char *err, size_t errlen)
{
	struct json_object *reply = NULL;
	size_t from, to;
	char *shell;
	int ret;

	if (!rows)
		return proto_parse_reply(line, len, out, err, errlen);
	if (len > TRACER_REPLY_MAX || memchr(line, '\0', len) ||
	    find_array(line, len, rows->key, &from, &to) < 0) {
		/* checked and said by the whole parse; rows, if any, from its tree */
		ret = proto_parse_reply(line, len, &reply, err, errlen);
		if (!ret && (ret = rows_from_tree(reply, rows, err, errlen)) < 0)
			json_object_put(reply);
		if (!ret)
			*out = reply;
		return ret;
	}
	/* the reply around the array, parsed as a reply (version, ok, error), the array empty */
	if (!(shell = malloc(from + (len - to) + 1))) {
		proto_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(shell, line, from);
	memcpy(shell + from, line + to, len - to);
	ret = proto_parse_reply(shell, from + (len - to), &reply, err, errlen);
	free(shell);
	if (!ret) /* the array, brackets and all */
		ret = rows->rows(rows->ctx, line + from - 1, to - from + 2, err, errlen);
	if (ret < 0) {
		json_object_put(reply);
		return ret;
	}
	*out = reply;
	return 0;
}
