import { request } from 'undici';

/**
 * An open dashboard, as busy as a user clicking around: signed in with a one-time link, it reloads the
 * endpoint list, the usage charts and the keys every second. The bench runs the cached load with and
 * without it to show what keeping the dashboard open costs the retrieval path (issue 18).
 */
export interface OpenDashboard {
  /** Dashboard requests answered so far (proof it really was busy). */
  readonly answered: number;
  stop(): Promise<void>;
}

export async function openDashboard(daemonUrl: string, loginUrl: string): Promise<OpenDashboard> {
  const signIn = await request(loginUrl.replace(/^http:\/\/[^/]+/, daemonUrl), { method: 'GET' });
  await signIn.body.dump();
  const setCookie = signIn.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0];
  if (signIn.statusCode !== 303 || !cookie) throw new Error(`dashboard sign-in failed with status ${signIn.statusCode}`);
  let answered = 0;
  let running = true;
  const round = async (): Promise<void> => {
    for (const path of ['/ui/api/endpoints', '/ui/api/usage?unit=hour', '/ui/api/keys']) {
      const answer = await request(`${daemonUrl}${path}`, { headers: { cookie } });
      await answer.body.dump();
      if (answer.statusCode === 200) answered += 1;
    }
  };
  const loop = (async () => {
    while (running) {
      await round().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return {
    get answered() {
      return answered;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
