// The message through fmt.Print: Go strings are UTF-8 bytes and Go never consults
// the locale, so the bytes pass through unchanged.
package main

import "fmt"

var lines = []string{
	"ascii: Hello, world\n",
	"latin: caf\u00e9, na\u00efve, \u00c6r\u00f8sk\u00f8bing\n",
	"chinese: \u4e2d\u6587\u8f93\u51fa\n",
	"emoji: \U0001f600\n",
	"end: the last line, in ASCII\n",
}

func main() {
	for _, line := range lines {
		fmt.Print(line)
	}
}
