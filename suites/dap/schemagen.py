#!/usr/bin/env python3
# Writes suites/dap/schemas/dap.v1.json from the Debug Adapter Protocol's JSON schema
# (debugAdapterProtocol.json of microsoft/debug-adapter-protocol; the suite's copy was made from commit
# e34479c39ed4973210115872c8e118c097a50d4a): the definitions the vectors need, their types and constraints
# as upstream has them, upstream's descriptions left out and the suite's own written instead; seq's minimum
# is left to the vector seq-starts-at-one (suites/dap/NOTES.md). Usage:
#   python3 suites/dap/schemagen.py PATH/TO/debugAdapterProtocol.json
# then `conform manifest --suite suites/dap` (the schema is a suite file).
import sys
import json, copy
up = json.load(open(sys.argv[1]))['definitions']

def strip(x):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k in ('description', '_enum', 'enumDescriptions', 'title', 'markdownDescription'):
                continue
            if k == '$ref':
                out[k] = '#/$defs/' + v.split('/')[-1]
                continue
            out[k] = strip(v)
        return out
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x

ANY = ["array", "boolean", "integer", "null", "number", "object", "string"]
own = {
 'Capabilities': "Information about the capabilities of a debug adapter: the body of its initialize response (DAP 1.71 'Types' / 'Capabilities'); a missing flag is an unsupported feature.",
 'ExceptionBreakpointsFilter': "An exception filter the adapter offers (DAP 1.71 'Types' / 'ExceptionBreakpointsFilter').",
 'ColumnDescriptor': "A column of the modules view (DAP 1.71 'Types' / 'ColumnDescriptor').",
 'ChecksumAlgorithm': "The name of a checksum algorithm (DAP 1.71 'Types' / 'ChecksumAlgorithm').",
 'BreakpointMode': "A breakpoint mode the adapter offers (DAP 1.71 'Types' / 'BreakpointMode').",
 'BreakpointModeApplicability': "Which breakpoints a mode applies to (DAP 1.71 'Types' / 'BreakpointModeApplicability').",
 'Message': "A structured error message (DAP 1.71 'Types' / 'Message').",
 'Source': "A source file or other source of code (DAP 1.71 'Types' / 'Source').",
 'Checksum': "A checksum of a source (DAP 1.71 'Types' / 'Checksum').",
 'Thread': "A thread (DAP 1.71 'Types' / 'Thread').",
}
defs = {}
for name, desc in own.items():
    d = strip(copy.deepcopy(up[name]))
    d = {'description': desc, **d}
    defs[name] = d

pm = strip(up['ProtocolMessage'])
del pm['properties']['seq']['minimum']  # checked by the vector seq-starts-at-one (NOTES.md)
defs['ProtocolMessage'] = {'description': "What every message has: its sender's seq and its type. The specification's JSON schema gives seq a minimum of 1 (the first message of a sender is 1, each next one 1 greater); this schema leaves the minimum to the vector seq-starts-at-one, so that an adapter numbering from 0 fails that vector and not every frame (DAP 1.71 'Base Protocol' / 'ProtocolMessage').", **pm}
defs['Request'] = {'description': "A request of the client or of the debug adapter (DAP 1.71 'Base Protocol' / 'Request').",
  'allOf': [{'$ref': '#/$defs/ProtocolMessage'}],
  'type': 'object',
  'properties': {'type': {'const': 'request'}, 'command': {'type': 'string'}, 'arguments': {'type': ANY}},
  'required': ['type', 'command']}
events = {
  'output': {'type': 'object', 'required': ['body'], 'properties': {'body': {'$ref': '#/$defs/OutputEventBody'}}},
  'exited': {'type': 'object', 'required': ['body'], 'properties': {'body': {'type': 'object', 'required': ['exitCode'], 'properties': {'exitCode': {'type': 'integer'}}}}},
  'terminated': {'type': 'object', 'properties': {'body': {'type': 'object', 'properties': {'restart': {'type': ANY}}}}},
}
ob = strip(up['OutputEvent'])['allOf'][1]['properties']['body']
defs['OutputEventBody'] = {'description': "The body of an output event (DAP 1.71 'Events' / 'Output Event').", **ob}
defs['Event'] = {'description': "An event of the debug adapter (DAP 1.71 'Base Protocol' / 'Event'); the bodies of the output, exited and terminated events are checked against their events' sections.",
  'allOf': [{'$ref': '#/$defs/ProtocolMessage'}] + [
     {'if': {'properties': {'event': {'const': n}}, 'required': ['event']}, 'then': s} for n, s in events.items()],
  'type': 'object',
  'properties': {'type': {'const': 'event'}, 'event': {'type': 'string'}, 'body': {'type': ANY}},
  'required': ['type', 'event']}
defs['Response'] = {'description': "A response to a request (DAP 1.71 'Base Protocol' / 'Response'): request_seq is the seq of the request it answers; success false makes it an ErrorResponse.",
  'allOf': [{'$ref': '#/$defs/ProtocolMessage'}, {'if': {'properties': {'success': {'const': False}}, 'required': ['success']}, 'then': {'$ref': '#/$defs/ErrorResponse'}}],
  'type': 'object',
  'properties': {'type': {'const': 'response'}, 'request_seq': {'type': 'integer', 'minimum': 1}, 'success': {'type': 'boolean'}, 'command': {'type': 'string'}, 'message': {'type': 'string'}, 'body': {'type': ANY}},
  'required': ['type', 'request_seq', 'success', 'command']}
defs['ErrorResponse'] = {'description': "What a response with success false adds: a body, whose error member, when present, is a Message (DAP 1.71 'Base Protocol' / 'ErrorResponse').",
  'type': 'object', 'required': ['body'], 'properties': {'body': {'type': 'object', 'properties': {'error': {'$ref': '#/$defs/Message'}}}}}
ack = lambda cmd, sec: {'description': f"A success response to {cmd} (DAP 1.71 'Requests' / '{sec}'): an acknowledgement, no body required.", '$ref': '#/$defs/Response'}
defs['ResponseByCommand'] = {
  'description': "Lookup table, not a message shape: its properties are keyed by command, and each validates a whole success response to a request of that command. The suite's envelope names it (replyBody: '#/$defs/ResponseByCommand/properties'); error responses never match an entry.",
  'type': 'object',
  'properties': {
    'initialize': {'description': "A success response to initialize (DAP 1.71 'Requests' / 'Initialize Request'): the body, when present, is the adapter's Capabilities.",
                   'allOf': [{'$ref': '#/$defs/Response'}], 'properties': {'body': {'$ref': '#/$defs/Capabilities'}}},
    'launch': ack('launch', 'Launch Request'),
    'attach': ack('attach', 'Attach Request'),
    'disconnect': ack('disconnect', 'Disconnect Request'),
    'configurationDone': ack('configurationDone', 'ConfigurationDone Request'),
    'cancel': ack('cancel', 'Cancel Request'),
    'threads': {'description': "A success response to threads (DAP 1.71 'Requests' / 'Threads Request'): the body lists the threads.",
                'allOf': [{'$ref': '#/$defs/Response'}], 'required': ['body'],
                'properties': {'body': {'type': 'object', 'required': ['threads'], 'properties': {'threads': {'type': 'array', 'items': {'$ref': '#/$defs/Thread'}}}}}},
  }}
schema = {
  '$schema': 'https://json-schema.org/draft/2020-12/schema',
  'title': 'conform DAP suite, version 1 (Debug Adapter Protocol 1.71)',
  'description': "The messages of the Debug Adapter Protocol 1.71 this suite exchanges: a message is a request, a response or an event. Types and constraints follow the protocol's JSON schema (microsoft/debug-adapter-protocol debugAdapterProtocol.json, commit e34479c39ed4973210115872c8e118c097a50d4a) for the definitions listed here only; descriptions are the suite's. suites/dap/NOTES.md says what was taken and why.",
  'oneOf': [{'$ref': '#/$defs/Request'}, {'$ref': '#/$defs/Event'}, {'$ref': '#/$defs/Response'}],
  '$defs': dict(sorted(defs.items())),
}
import sys
def refs(x, acc):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == '$ref': acc.add(v.split('/')[-1])
            else: refs(v, acc)
    elif isinstance(x, list):
        for v in x: refs(v, acc)
    return acc
missing = refs(schema, set()) - set(defs) - {''}
assert not missing, missing
json.dump(schema, open(__import__('os').path.join(__import__('os').path.dirname(__file__), 'schemas', 'dap.v1.json'), 'w'), indent=2, ensure_ascii=False)
open(__import__('os').path.join(__import__('os').path.dirname(__file__), 'schemas', 'dap.v1.json'), 'a').write('\n')
