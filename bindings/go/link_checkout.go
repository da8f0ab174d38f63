//go:build !forgecore_system

package forgecore

// The default link: the static library of the checkout this package sits in,
// target/debug/libforgecore.a, and the header of its include/. A Go binary then needs no
// libforgecore.so at run time. A CGO_LDFLAGS of "-L/path/to/target/release" comes first on the
// link line and picks another build (the Makefile does so for the benchmarks). The system
// libraries are the ones `cargo rustc -- --print native-static-libs` names.
//
// Build with -tags forgecore_system to use an installed library instead (link_system.go).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/debug -l:libforgecore.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
*/
import "C"
