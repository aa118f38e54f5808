/**
 * Rules across sections (src/config/cross-checks.ts), reported with the schema's problems in one
 * pass: a name in an agent's access rules that matches no client and no group, and two listeners
 * on one port.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from './problems.js';

const AUTH = `auth:
  apiKeys:
    planner: { key: "planner-key-0123456789", groups: [team-a] }
    ops-bot: { key: "ops-bot-key-0123456789", groups: [ops] }
`;
const agent = (access: string) => `${AUTH}agents:\n  a:\n    url: http://h:1\n    access: ${access}\n`;

describe('access names', () => {
  it('refuses a name in access.allow that is neither a client nor a group', () => {
    expect(problems(agent('{ allow: [team-a, plannr] }'))).toEqual([
      'agents.a.access.allow[1]: "plannr" is neither an `auth.apiKeys` client nor a group of one (known: planner, ops-bot, team-a, ops)',
    ]);
  });

  it('checks access.methods the same way', () => {
    expect(problems(agent('{ methods: { CancelTask: [opps] } }'))).toEqual([
      expect.stringMatching(/^agents\.a\.access\.methods\.CancelTask\[0\]: "opps" is neither/),
    ]);
  });

  it('takes clients and groups', () => {
    const config = parseConfig(agent('{ allow: [planner, ops], methods: { CancelTask: [ops-bot] } }'), 'gw.yaml', {});
    expect(config.agents['a']!.access.allow).toEqual(['planner', 'ops']);
  });

  it('checks no names under auth.jwt: principals and groups come from the tokens', () => {
    const jwt = `  jwt: { issuer: https://idp.example.com, audience: gw, jwksUrl: https://idp.example.com/jwks }\n`;
    const text = agent('{ allow: [anyone-the-idp-names] }').replace('agents:', `${jwt}agents:`);
    expect(() => parseConfig(text, 'gw.yaml', {})).not.toThrow();
  });

  it('is reported along with schema problems elsewhere', () => {
    expect(problems(`listen: { port: x }\n${agent('{ allow: [nobody] }')}`)).toEqual([
      expect.stringMatching(/^agents\.a\.access\.allow\[0\]: "nobody" is neither/),
      expect.stringMatching(/^listen\.port: .* \(got "x"\)$/),
    ]);
  });
});

describe('listener ports', () => {
  const AGENTS = 'agents:\n  a:\n    url: http://h:1\n';

  it('refuses listen and admin.listen on the same port, given or by default', () => {
    expect(problems(`listen: { port: 9000 }\nadmin: { listen: { port: 9000 } }\n${AGENTS}`)).toEqual([
      'admin.listen.port: port 9000 is already `listen.port`',
    ]);
    expect(problems(`listen: { port: 9464 }\n${AGENTS}`)).toEqual([
      'admin.listen.port: port 9464 is already `listen.port`',
    ]);
    expect(problems(`admin: { listen: { host: 10.0.0.1, port: 8080 } }\n${AGENTS}`)).toEqual([
      'admin.listen.port: port 8080 is already `listen.port`',
    ]);
    // The old key of the admin listener counts too.
    expect(problems(`listen: { port: 9000 }\nmetrics: { listen: { port: 9000 } }\n${AGENTS}`)).toEqual([
      'admin.listen.port: port 9000 is already `listen.port`',
    ]);
  });

  it('refuses a gRPC port that is another listener’s', () => {
    expect(
      problems(
        `admin: { listen: { port: 9000 } }\nlisten: { grpc: { port: 9000 } }\n${AGENTS}    grpc: { listen: { port: 8080 } }\n`,
      ),
    ).toEqual([
      'agents.a.grpc.listen.port: port 8080 is already `listen.port`',
      'listen.grpc.port: port 9000 is already `admin.listen.port`',
    ]);
  });

  it('lets every listener take port 0 (any free port)', () => {
    expect(() =>
      parseConfig(`listen: { port: 0, grpc: { port: 0 } }\nadmin: { listen: { port: 0 } }\n${AGENTS}`, 'gw.yaml', {}),
    ).not.toThrow();
  });
});
