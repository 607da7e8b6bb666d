/* Narrow and wide output on one stream: the first printf makes stdout byte-oriented
 * (C11 7.21.2), after which the wide calls in the middle fail; the last line is narrow
 * again. setlocale is called, so the locale is not what goes wrong. */
#include <locale.h>
#include <stdio.h>
#include <wchar.h>

#include "message.h"

int main(void)
{
    setlocale(LC_ALL, "");
    printf("%s", MESSAGE_UTF8[0]);
    for (size_t i = 1; i + 1 < MESSAGE_LINES; i++)
        wprintf(L"%ls", MESSAGE_WIDE[i]);
    printf("%s", MESSAGE_UTF8[MESSAGE_LINES - 1]);
    return 0;
}
