package main

import (
	"flag"
	"time"

	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/runner"
)

// boundFlags declares --grace and --quiet on fl (docs/running.md "Bounds"):
// given, they override the profile's and the suite's; not given, the
// profile's (applyBounds) or else the suite version's apply.
func boundFlags(fl *flag.FlagSet) (grace, quiet *time.Duration) {
	grace = fl.Duration("grace", runner.DefaultGrace, "time the IUT gets to exit after stdin closes, before SIGTERM (when not given: the profile's grace, else the suite's, else this default)")
	quiet = fl.Duration("quiet", runner.DefaultQuiet, "once the IUT has written its first line, end a wait for a reply it owes when it writes nothing (stdout or stderr) and is sent nothing for this long; 0: never, only --timeout (when not given: the profile's quiet, else the suite's, else this default)")
	return grace, quiet
}

// setBounds puts the --grace and --quiet given on fl into cfg, and leaves
// cfg's zero (the profile's or the suite's, see runner.Config) for those not
// given. It returns a usage message for a value out of range.
func setBounds(fl *flag.FlagSet, cfg *runner.Config, grace, quiet time.Duration) string {
	cfg.Grace, cfg.Quiet = 0, 0
	if flagSet(fl, "grace") {
		if grace <= 0 {
			return "--grace must be a positive duration"
		}
		cfg.Grace = grace
	}
	if flagSet(fl, "quiet") {
		switch {
		case quiet < 0:
			return "--quiet must be 0 (none) or a positive duration"
		case quiet == 0:
			cfg.Quiet = runner.NoQuiet
		default:
			cfg.Quiet = quiet
		}
	}
	return ""
}

// applyBounds gives cfg the profile's grace and quiet where the command line
// gave none (setBounds left them zero).
func applyBounds(cfg *runner.Config, p *profile.Profile) {
	if cfg.Grace == 0 {
		cfg.Grace = p.GraceDuration()
	}
	if d, set := p.QuietBound(); set && cfg.Quiet == 0 {
		cfg.Quiet = d
		if d == 0 {
			cfg.Quiet = runner.NoQuiet
		}
	}
}
