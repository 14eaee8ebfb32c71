module github.com/conform-kit/conform/impl/templates/go

go 1.26
