"""An independent OAuth 1.0 client (oauthlib, RFC 5849) for the tests: reads one JSON request on
standard input, signs it as publishers' tools do (HMAC in the Authorization header, with
oauth_body_hash for a JSON body), sends it `times` times, and prints each answer as a JSON line.
`sent_body`, when given, is sent instead of the signed body (a body swapped after signing);
`signed_url`, when given, is the URL signed while the request goes to `url`."""
import json, sys, urllib.request, urllib.error
from oauthlib.oauth1 import Client

request = json.load(sys.stdin)
client = Client(request['consumer_key'], client_secret=request['consumer_secret'],
                resource_owner_key=request['token'], resource_owner_secret=request['token_secret'],
                signature_method=request.get('signature_method', 'HMAC-SHA1'),
                timestamp=request.get('timestamp'), nonce=request.get('nonce'))
headers = {'Content-Type': request.get('content_type', 'application/json')}
_, signed_headers, _ = client.sign(request.get('signed_url', request['url']), request.get('method', 'POST'),
                                   body=request['body'], headers=headers if request['body'] else {})
sent_body = request.get('sent_body', request['body'])
body = sent_body.encode('utf-8') if sent_body else None
for _ in range(request.get('times', 1)):
    sent = urllib.request.Request(request['url'], data=body, method=request.get('method', 'POST'), headers=signed_headers)
    try:
        with urllib.request.urlopen(sent, timeout=60) as answer:
            print(json.dumps({'status': answer.status, 'body': answer.read().decode('utf-8')}))
    except urllib.error.HTTPError as error:
        print(json.dumps({'status': error.code, 'body': error.read().decode('utf-8')}))
