/* Human-readable figures. */
#include <stdio.h>

#include "format.h"

void fmt_seconds(char *out, size_t len, double s)
{
        long long whole = (long long)s;

        if (s < 60)
                snprintf(out, len, "%.2fs", s);
        else if (s < 3600)
                snprintf(out, len, "%lld:%05.2f", whole / 60, s - whole / 60 * 60);
        else if (s < 86400)
                snprintf(out, len, "%lld:%02lld:%02lld", whole / 3600, whole / 60 % 60, whole % 60);
        else
                snprintf(out, len, "%lld-%02lld:%02lld:%02lld", whole / 86400, whole / 3600 % 24,
                         whole / 60 % 60, whole % 60);
}

void fmt_bytes(char *out, size_t len, double b)
{
        static const char units[] = "KMGTP";
        int i = -1;

        if (b < 1024) {
                snprintf(out, len, "%.0fB", b);
                return;
        }
        while (b >= 1024 && i < 4) {
                b /= 1024;
                i++;
        }
        snprintf(out, len, "%.1f%c", b, units[i]);
}
