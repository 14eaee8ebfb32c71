#!/usr/bin/env python3
"""Play each server-role vector of suites/mcp through probe.py against a command, before the runner can.

    vectorprobe.py [--only GLOB] -- COMMAND [ARG...]

For every vectors/v1/server/*.json it turns send (frame, line, await) and peer rules
(answered by method) into a probe scenario, runs it, and prints whether every id in
expect.replies got a response, the exit status and how many frames came back. It
checks no golden: it is a hand tool for writing vectors and expected-failure lists.
Python standard library only.
"""
import fnmatch, json, sys, glob, os, subprocess, re, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
only = "*"
if args[:1] == ["--only"]:
    only, args = args[1], args[2:]
if args[:1] == ["--"]:
    args = args[1:]
if not args:
    sys.exit("usage: vectorprobe.py [--only GLOB] -- COMMAND [ARG...]")
bad = 0
for p in sorted(glob.glob(os.path.join(HERE, 'vectors', 'v1', 'server', '*.json'))):
    if not fnmatch.fnmatch(os.path.basename(p), only + '.json') and only != '*':
        continue
    v = json.load(open(p))
    out = []
    for rule in v.get('peer', []):
        m = [x['equals'] for x in rule['match'] if x['path'] == '/method'][0]
        r = rule['reply']
        if 'result' in r: out.append('#answer %s %s' % (m, json.dumps(r['result'])))
        else: out.append('#answer-error %s %d %s' % (m, r['error']['code'], r['error']['message']))
    for it in v['send']:
        if 'frame' in it: out.append(json.dumps(it['frame'], ensure_ascii=False, separators=(',',':')))
        elif 'line' in it: out.append('#line ' + it['line'])
        elif 'await' in it: out.append('#wait ' + json.dumps(it['await']))
    fd, scen = tempfile.mkstemp(suffix='.txt')
    os.close(fd)
    open(scen, 'w').write('\n'.join(out) + '\n')
    res = subprocess.run([sys.executable, os.path.join(HERE, 'probe.py'), '--timeout', '5', '--grace', '3', scen, '--'] + args, capture_output=True, text=True)
    os.remove(scen)
    got = []
    for line in res.stdout.splitlines():
        mm = re.match(r'^\+\s*\d+ms < (.*)$', line)
        if mm:
            try: got.append(json.loads(mm.group(1)))
            except ValueError: pass
    reply_ids = [json.dumps(g['id']) for g in got if isinstance(g, dict) and 'method' not in g and 'id' in g]
    missing = [r for r in v['expect'].get('replies', []) if json.dumps(r) not in reply_ids]
    exitline = [l for l in res.stdout.splitlines() if ' = ' in l]
    flag = 'MISSING %s' % missing if missing else 'ok'
    if missing: bad += 1
    print('%-40s %-6s %s %s | %d frames' % (v['id'], v['level'][:4], flag, exitline[-1].split('= ')[-1] if exitline else '?', len(got)))
print('%d vectors with a missing reply' % bad)
