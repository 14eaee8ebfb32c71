package main

// helpTail ends `conform --help`: what the exit statuses mean and where
// to read more.
const helpTail = `
exit status: 0 passed; 1 findings (a run NOT_CERTIFIED or NOTHING_PASSED, parity differs, compat
breaks); 2 usage error or invalid suite input; 3 the run could not be carried out (the IUT cannot be
started); 130 interrupted. 'conform run -h' lists the verdicts.

docs (in the source, github.com/conform-kit/conform): README.md (the index of docs/); docs/commands.md
(every command, with an example); docs/first-implementation.md (write and certify an agent in fifteen
minutes); docs/findings.md (every finding code: what it means, how to fix it).
`

// runHelpTail ends `conform run -h`: the verdict words of the report's
// last line, their exit statuses, the vector statuses, and where to read
// more (docs/running.md "Verdicts", docs/findings.md).
const runHelpTail = `
The report ends with one verdict line; the exit status follows it:
  CERTIFIED                       0  a full run: every required and recommended vector passed
  PASSED_WITH_EXPECTED_FAILURES   0  as CERTIFIED, but the expected-failure list excused some: not a certificate
  PASSED_PARTIAL                  0  a narrowed run (--filter, --skip, --level) without failures: certifies nothing
  NOT_CERTIFIED                   1  a required or recommended vector failed, an expected failure passed or
                                     names no vector that can fail, or the preflight (fail fast) stopped the run
  NOTHING_PASSED                  1  no required or recommended vector ran and passed
  INVALID_SUITE_INPUT             2  a vector or golden file is invalid
  INTERRUPTED                   130  SIGINT, SIGTERM, SIGHUP or SIGQUIT: finished vectors are reported, the rest NOT_RUN
Other exit statuses: 2 a usage error, 3 the run could not be carried out (the IUT cannot be started).

Each vector is PASS, FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, TIMEOUT, CRASH, XFAIL, XPASS, INVALID or
NOT_RUN; informational vectors never decide the verdict. Every finding code (REPLY_MISSING, ...) is
explained in docs/findings.md; verdicts, levels and bounds in docs/running.md "Verdicts"; a first agent,
step by step, in docs/first-implementation.md (in the source, github.com/conform-kit/conform).
`
