// The message through std::wcout, configured by macros the way the classic article's
// program and its fixes were:
//   NO_SYNC        std::ios_base::sync_with_stdio(false): wcout converts by itself
//                  (its own codecvt) instead of handing wide characters to C stdio
//   GLOBAL_LOCALE  std::locale::global(std::locale("")): the user's locale for the
//                  C++ library and, because it has a name, for C (setlocale) too
//   IMBUE          std::wcout.imbue(std::locale("")): the user's locale for wcout only
// Written the way most programs are: nothing checked, exit status 0.
#include <iostream>
#include <locale>

#include "message.h"

int main()
{
#ifdef NO_SYNC
    std::ios_base::sync_with_stdio(false);
#endif
#ifdef GLOBAL_LOCALE
    std::locale::global(std::locale(""));
#endif
#ifdef IMBUE
    std::wcout.imbue(std::locale(""));
#endif
    for (size_t i = 0; i < MESSAGE_LINES; i++)
        std::wcout << MESSAGE_WIDE[i];
    return 0;
}
