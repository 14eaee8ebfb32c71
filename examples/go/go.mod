module example.com/agent

go 1.22
