"""Host role of control protocol v1 (docs/host-role.md), for agent.py.

agent.py hands the process over to run() when CONFORM_ROLE=host. The agent
writes frames on stdin; this host answers each control_request with exactly one
control_response on stdout, deciding as the policy in CONFORM_POLICY (RFC 8785
JSON, unset or empty = {}) dictates; a can_use_tool the policy defers gets no
reply at all. Written from docs/host-role.md, schemas/control.v1.json,
vectors/v1/host/ and golden/v1/host/.
"""

import os
import sys

import agent as _agent  # JSON reading/writing shared with the agent role

POLICY_ENV = "CONFORM_POLICY"
DENIED = "Denied by policy"
ASK_TOOL = "AskUserQuestion"
MISSING = _agent.UNDEFINED


class PolicyError(Exception):
    pass


def load_policy(environ=os.environ):
    text = environ.get(POLICY_ENV, "")
    if text.strip() == "":
        return {}
    try:
        policy = _agent.parse_json(text)
    except ValueError as e:
        raise PolicyError("%s is not JSON: %s" % (POLICY_ENV, e))
    if not isinstance(policy, dict):
        raise PolicyError("%s is not a JSON object" % POLICY_ENV)
    rules = member(policy, "can_use_tool", dict) or {}
    for name, rule in rules.items():
        if is_defer(rule) and len(rule) > 1:
            raise PolicyError("%s: can_use_tool %s: a defer rule has no other member"
                              % (POLICY_ENV, _agent.dumps(name)))
    return policy


def is_defer(rule):
    """Whether a can_use_tool rule is {"defer": true}: the host does not decide
    yet (a user who has not answered), so the request stays pending, and in v1
    a pending request gets no reply at all, whether the agent cancels it or
    input ends."""
    return isinstance(rule, dict) and rule.get("defer") is True


def member(obj, key, kind):
    """obj[key] when obj is an object holding a value of type kind, else None."""
    if isinstance(obj, dict):
        v = obj.get(key, MISSING)
        if isinstance(v, kind) and not (kind is float and isinstance(v, bool)):
            return v
    return None


class Host:
    def __init__(self, policy):
        self.policy = policy

    # ------------------------------------------------------------ decisions

    def tool_rule(self, req):
        """The can_use_tool rule for req: the tool's own, else "*"'s, else None."""
        tool = req.get("tool_name")
        rules = member(self.policy, "can_use_tool", dict) or {}
        if isinstance(tool, str) and tool in rules:
            return rules[tool]
        return rules.get("*")

    def can_use_tool(self, req):
        tool = req.get("tool_name")
        rule = self.tool_rule(req)
        if not isinstance(rule, dict):
            rule = None
        behavior = rule.get("behavior") if rule else None
        inp = req.get("input")
        if not isinstance(inp, dict):
            inp = {}

        if behavior == "deny":
            return self.deny(rule)
        questions = inp.get("questions")
        if tool == ASK_TOOL and isinstance(questions, list):
            if behavior == "allow" and isinstance(rule.get("updatedInput"), dict):
                return self.allow(rule, rule["updatedInput"])
            answers = self.answer(questions)
            if answers is None:
                return {"behavior": "deny", "message": DENIED}
            updated = dict(inp)
            updated["answers"] = answers
            return self.allow(rule if behavior == "allow" else None, updated)
        if behavior == "allow":
            updated = rule.get("updatedInput")
            return self.allow(rule, updated if isinstance(updated, dict) else inp)
        return {"behavior": "deny", "message": DENIED}

    @staticmethod
    def allow(rule, updated_input):
        body = {"behavior": "allow", "updatedInput": updated_input}
        perms = member(rule, "updatedPermissions", list)
        if perms is not None:
            body["updatedPermissions"] = perms
        return body

    @staticmethod
    def deny(rule):
        message = member(rule, "message", str)
        body = {"behavior": "deny", "message": DENIED if message is None else message}
        if rule.get("interrupt") is True:
            body["interrupt"] = True
        return body

    def answer(self, questions):
        """{question text: answer string} for every question, or None."""
        table = member(self.policy, "answers", dict) or {}
        out = {}
        for q in questions:
            text = member(q, "question", str)
            if text is None or text not in table:
                return None
            a = table[text]
            if isinstance(a, list) and all(isinstance(s, str) for s in a):
                a = ", ".join(a)
            if not isinstance(a, str):
                return None
            out[text] = a
        return out

    def hook(self, req):
        cid = req.get("callback_id", MISSING)
        hooks = member(self.policy, "hooks", dict) or {}
        if isinstance(cid, str) and cid in hooks:
            return hooks[cid], None
        return None, "No hook callback found for ID: " + _agent.js_string(cid)

    def mcp(self, req):
        server = req.get("server_name", MISSING)
        msg = req.get("message")
        servers = member(self.policy, "mcp", dict) or {}
        if isinstance(msg, dict) and "method" in msg and msg.get("id") is not None:
            rid = msg["id"]
            if isinstance(server, str) and server in servers:
                methods = servers[server] if isinstance(servers[server], dict) else {}
                method = msg["method"]
                result = methods[method] if isinstance(method, str) and method in methods else {}
                reply = {"jsonrpc": "2.0", "id": rid, "result": result}
            else:
                reply = {"jsonrpc": "2.0", "id": rid, "error": {
                    "code": -32601,
                    "message": "Server '%s' not found" % _agent.js_string(server)}}
        else:
            reply = {"jsonrpc": "2.0", "result": {}}
        return {"mcp_response": reply}

    def verbatim(self, key, default):
        body = member(self.policy, key, dict)
        return default if body is None else body

    def decide(self, req):
        """(success body, None) or (None, error text) for one request."""
        subtype = req.get("subtype", MISSING) if isinstance(req, dict) else MISSING
        if not isinstance(req, dict):
            req = {}
        if subtype == "can_use_tool":
            return self.can_use_tool(req), None
        if subtype == "hook_callback":
            return self.hook(req)
        if subtype == "mcp_message":
            return self.mcp(req), None
        if subtype == "request_user_dialog":
            return self.verbatim("dialog", {"behavior": "cancelled"}), None
        if subtype == "elicitation":
            return self.verbatim("elicitation", {"action": "decline"}), None
        if subtype == "side_question":
            return self.verbatim("side_question", {"action": "decline"}), None
        return None, "Unsupported control request subtype: " + _agent.js_string(subtype)

    # ---------------------------------------------------------------- lines

    def reply(self, frame):
        """The reply line to one input line (str), or None."""
        text = frame.strip(_agent._ES_SPACE)
        if not text:
            return None
        try:
            v = _agent.parse_json(text)
        except (ValueError, RecursionError):
            return None  # not JSON: ignored, the host never exits on bad input
        if not isinstance(v, dict) or v.get("type") != "control_request":
            return None  # other frames, replies and cancels get nothing
        req = v.get("request")
        if member(req, "subtype", str) == "can_use_tool" and is_defer(self.tool_rule(req)):
            return None  # deferred: pending for good, v1 never answers it
        body, error = self.decide(req)
        inner = {"subtype": "success" if error is None else "error"}
        if "request_id" in v:
            inner["request_id"] = v["request_id"]
        if error is None:
            inner["response"] = body
        else:
            inner["error"] = error
        return _agent.dumps({"type": "control_response", "response": inner})


def run():
    try:
        policy = load_policy()
    except PolicyError as e:
        sys.stderr.write("conform-python host: %s\n" % e)
        return 2
    host = Host(policy)
    out = sys.stdout.buffer
    fd = sys.stdin.fileno()
    buf = bytearray()

    def line(raw):
        text = host.reply(raw.decode("utf-8", errors="replace"))
        if text is not None:
            out.write(text.encode("utf-8") + b"\n")
            out.flush()

    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:
            continue
        if not chunk:
            break
        buf += chunk
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line(bytes(buf[start:nl]))
            start = nl + 1
        del buf[:start]
    if buf:
        line(bytes(buf))  # last line without LF
    return 0
