module github.com/baton-dev/baton/sdks/go

go 1.19
