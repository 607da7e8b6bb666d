/* printf of the message's UTF-8 bytes: no conversion anywhere, the bytes pass through. */
#include <stdio.h>

#include "message.h"

int main(void)
{
    for (size_t i = 0; i < MESSAGE_LINES; i++)
        printf("%s", MESSAGE_UTF8[i]);
    return 0;
}
