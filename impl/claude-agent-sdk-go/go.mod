module github.com/conform-kit/conform/impl/claude-agent-sdk-go

go 1.26

require github.com/severity1/claude-agent-sdk-go v0.6.12
