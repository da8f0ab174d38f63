module forgecore.dev/forgecore

go 1.24.0
