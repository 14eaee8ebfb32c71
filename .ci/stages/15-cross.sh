#!/usr/bin/env bash
# Portable process control (issue 14, docs/containment.md "Containment"): the kit builds
# and vets for macOS, Windows and FreeBSD, and the Windows build runs under
# Debian's Wine: the internal/proc tests (the Job Object kills the whole
# tree) and a certification of the reference, conform.exe run --
# conform-reference.exe.
set -euo pipefail
out="$CI_TMP/cross"
for target in darwin/amd64 darwin/arm64 windows/amd64 freebsd/amd64; do
  os=${target%/*} arch=${target#*/}
  echo "== $os/$arch: vet and build"
  GOOS=$os GOARCH=$arch go vet ./...
  GOOS=$os GOARCH=$arch go build -o "$out/$os-$arch/" ./cmd/...
done

echo "== windows/amd64 under Wine"
win="$out/windows-amd64"
GOOS=windows GOARCH=amd64 go test -c -o "$win/proc.test.exe" ./internal/proc
eval "$(WINEPREFIX="$CI_TMP/wine" bash .ci/wine/setup.sh)"
wine --version
cd "$win"
echo "-- internal/proc tests"
start=$SECONDS
wine proc.test.exe -test.v >proc.txt 2>&1 || { cat proc.txt; exit 1; }
grep -E '^(--- |PASS|FAIL)' proc.txt
echo "internal/proc tests under Wine: $((SECONDS - start)) s"
echo "-- conform.exe run -- conform-reference.exe"
start=$SECONDS
wine conform.exe run -j 2 -- '.\conform-reference.exe' >run.txt 2>&1 || { cat run.txt; exit 1; }
tail -2 run.txt
grep -q '^CERTIFIED: ' run.txt
wine conform.exe run -j 2 --version 2 -- '.\conform-reference.exe' >run2.txt 2>&1 || { cat run2.txt; exit 1; }
tail -1 run2.txt
grep -q '^CERTIFIED: ' run2.txt
echo "two certifications under Wine: $((SECONDS - start)) s"
wineserver -k || true
