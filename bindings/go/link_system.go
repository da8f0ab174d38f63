//go:build forgecore_system

package forgecore

// The link of a user who installed the library (`make install PREFIX=...`, or a distribution's
// package): pkg-config's forgecore.pc gives the header's directory and -lforgecore, so the
// binary loads libforgecore.so.N (N the C ABI version) from the library path at run time.
// PKG_CONFIG_PATH=<prefix>/lib/pkgconfig finds a prefix pkg-config does not search.

/*
#cgo pkg-config: forgecore
*/
import "C"
