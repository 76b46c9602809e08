/**
 * SWORD 1.3 with an independent client: Debian's libatompub-perl (Atompub::Client, a subclass of
 * XML::Atom::Client) reads the service document and deposits through it. `.ci/run` installs it;
 * the tests skip, saying why, only where it is missing.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { runPerl } from '../support/atompub.js';
import { requireProgram } from '../support/programs.js';

// Atompub::Client sends WSSE when it has a username; the node answers 401 with a Basic challenge
// and LWP retries with Basic credentials, which is the whole authentication round trip.
const CLIENT = String.raw`
use strict; use warnings;
use Atompub::Client;
my $client = Atompub::Client->new;
$client->username($ENV{LR_USER});
$client->password($ENV{LR_PASS});
$client->ua->default_header('X-On-Behalf-Of' => $ENV{LR_ON_BEHALF_OF}) if $ENV{LR_ON_BEHALF_OF};
my $service = $client->getService("$ENV{LR_URL}/swordservice") or die 'getService: ' . $client->errstr . "\n";
my @workspaces = $service->workspaces;
print 'workspaces=', scalar(@workspaces), "\n";
print 'workspace=', $workspaces[0]->title, "\n";
my @collections = $workspaces[0]->collections;
print 'collections=', scalar(@collections), "\n";
exit 0 unless @collections;
my $collection = $collections[0];
print 'collection=', $collection->title, "\n";
print 'href=', $collection->href, "\n";
print 'accept=', join(',', $collection->accept), "\n";
$client->ua->default_header('X-Verbose' => 'true');
my $json = $ENV{LR_DOC};
my $location = $client->createMedia($collection->href, \$json, 'application/json', 'lr-doc.json');
unless ($location) { my $error = $client->errstr; $error =~ s/\n/ /g; print "error=$error\n"; exit 0; }
print "status=", $client->res->code, "\n";
print "location=$location\n";
my $receipt = $client->rc;
my $sword = XML::Atom::Namespace->new(sword => 'http://purl.org/net/sword/');
print 'summary=', $receipt->summary, "\n";
print 'author=', $receipt->author->name, "\n";
print 'treatment=', $receipt->get($sword, 'treatment'), "\n";
print 'noOp=', $receipt->get($sword, 'noOp'), "\n";
print 'verbose=', ($receipt->get($sword, 'verboseDescription') ? 'yes' : 'no'), "\n";
print 'content_src=', $receipt->content->elem->getAttribute('src'), "\n";
`;

function lines(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('SWORD 1.3 with Debian libatompub-perl (Atompub::Client)', function () {
  let node: TestNode;
  before(async () => {
    requireProgram('Atompub::Client');
    node = await startTestNode({ nodeConfig: { node: { node_name: 'Perl-tested node' }, community: { community_name: 'Perl community' } } });
    await addAccount(node, 'alice', 'alice-password-1', 'publisher', 'alice@example.org');
    await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
  });
  after(async () => node?.stop());

  const client = (env: Record<string, string>, doc: unknown = { ...nsdlDocs(1)[0], identity: { submitter_type: 'agent' } }) =>
    runPerl(CLIENT, { LR_URL: node.url, LR_DOC: JSON.stringify(doc), ...env });

  it('reads the service document and deposits a document: 201, Location, receipt', async () => {
    const { code, stdout, stderr } = await client({ LR_USER: 'alice', LR_PASS: 'alice-password-1' });
    expect(code, stderr).to.equal(0);
    const out = lines(stdout);
    expect(out).to.include({ workspaces: '1', workspace: 'Perl community', collections: '1', collection: 'Perl-tested node', href: `${node.url}/swordpub`, accept: 'application/json' });
    expect(out.error, stdout).to.equal(undefined);
    expect(out).to.include({ status: '201', author: 'alice', noOp: 'false', verbose: 'yes' });
    expect(out.summary).to.match(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out.location).to.equal(`${node.url}/obtain?request_ID=${encodeURIComponent(out.summary as string)}&by_doc_ID=T`);
    expect(out.content_src).to.equal(out.location);
    expect(out.treatment).to.match(/Basic Publish/);
    expect(stderr, 'no warnings from the client about content types or status').to.equal('');
    const stored = await node.couch.use(node.names.resourceData).get(out.summary as string) as unknown as { identity: { submitter: string } };
    expect(stored.identity.submitter).to.equal('alice@example.org');
  });

  it('sees the collection only when mediating for a publisher, and reads a sword:error', async () => {
    const alone = lines((await client({ LR_USER: 'ops', LR_PASS: 'ops-password-1' })).stdout);
    expect(alone).to.include({ workspaces: '1', collections: '0' });
    const refused = lines((await client({ LR_USER: 'ops', LR_PASS: 'ops-password-1', LR_ON_BEHALF_OF: 'alice' }, { doc_type: 'resource_data' })).stdout);
    expect(refused.collections).to.equal('1');
    expect(refused.error).to.match(/^400 Bad Request .*ErrorBadRequest.*invalid document/);
  });
});
