// The load tools that drive the bundled hosts as processes over loopback: forgecore-soak
// (make test-soak, make soak) and forgecore-bench (make bench-go), with internal/hostproc
// starting and stopping a host. They run forgecore-http and `python3 -m forgecore serve` as
// programs and import nothing of the binding, so this module needs no other.
module forgecore.dev/loadtest

go 1.24.0
