package forgecore

// The //export the core calls for each log line (see log.go). A file with an //export may only
// declare in its preamble, hence a file of its own.

/*
#include <stddef.h>
*/
import "C"

import "unsafe"

//export forgecoreGoLog
func forgecoreGoLog(userData unsafe.Pointer, level C.int, text *C.char, length C.size_t) {
	_, _ = userData, level // the level is in the record; no user data is registered
	logLine(unsafe.Slice((*byte)(unsafe.Pointer(text)), int(length)))
}
