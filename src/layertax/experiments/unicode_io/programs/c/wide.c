/* The message as wide strings through wprintf (or fputws with -DUSE_FPUTWS): the C
 * library converts each wchar_t to bytes with the LC_CTYPE of its current locale,
 * which is "C" until the program calls setlocale (-DCALL_SETLOCALE). Written the way
 * most programs are: return values unchecked, exit status 0. */
#include <locale.h>
#include <stdio.h>
#include <wchar.h>

#include "message.h"

int main(void)
{
#ifdef CALL_SETLOCALE
    setlocale(LC_ALL, "");
#endif
    for (size_t i = 0; i < MESSAGE_LINES; i++) {
#ifdef USE_FPUTWS
        fputws(MESSAGE_WIDE[i], stdout);
#else
        wprintf(L"%ls", MESSAGE_WIDE[i]);
#endif
    }
    return 0;
}
