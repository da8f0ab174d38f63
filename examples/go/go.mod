module forgecore.dev/example

go 1.24.0

require forgecore.dev/forgecore v0.0.0-00010101000000-000000000000

replace forgecore.dev/forgecore => ../../bindings/go
