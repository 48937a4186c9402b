import { Prng } from '../../local/dart-sandbox/prng';
import { validAnswer } from '../../local/doubles/analysis-answers';
import { chatCompletion, type ModelServerDouble, startModelServerDouble } from '../../local/doubles/model-server-double';

/** One model call: who asked, for which filing (read from the prompt), and what it got. */
export interface ModelCall {
  at: number;
  instance: number;
  /** The soak filing the prompt is about; null when none could be read from it. */
  rceptNo: string | null;
  outcome: 'valid' | 'invalid-json' | 'hang';
  answeredAt?: number;
}

/**
 * The model over HTTP (the OpenAI Chat Completions API the real SDK calls): a valid analysis after
 * 1–5 s. While `storming`, half the calls hang (the client times out) and half answer JSON that is
 * cut off. Each instance gets a base URL of its own (`/i<n>/v1`), so every call is attributed.
 */
export class SoakModel {
  readonly calls: ModelCall[] = [];
  storming = false;
  private double?: ModelServerDouble;
  private readonly prng: Prng;

  constructor(
    seed: number,
    private readonly knownFiling: (rceptNo: string) => boolean,
  ) {
    this.prng = new Prng(seed);
  }

  async start(): Promise<void> {
    const double = await startModelServerDouble();
    this.double = double;
    double.answerWith(async (request) => {
      const call: ModelCall = {
        at: Date.now(),
        instance: Number(/^\/i(\d+)\//.exec(request.path)?.[1] ?? -1),
        rceptNo: this.filingOf(JSON.stringify(request.body)),
        outcome: 'valid',
      };
      this.calls.push(call);
      // The prompt is kept by the double for every call: dropped here, the rest is enough.
      request.body = null;
      if (this.storming) {
        if (this.prng.chance(0.5)) {
          call.outcome = 'hang';
          return 'hang';
        }
        call.outcome = 'invalid-json';
        call.answeredAt = Date.now();
        return chatCompletion('{"schema_version": 2, "headline": "잘린 답');
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000 + this.prng.next() * 4_000));
      call.answeredAt = Date.now();
      return chatCompletion(JSON.stringify(validAnswer()));
    });
  }

  baseUrl(instance: number): string {
    return `${this.double!.url}/i${instance}/v1`;
  }

  async close(): Promise<void> {
    await this.double?.close();
  }

  /** The soak filing a prompt is about: the receipt number its document states. */
  private filingOf(prompt: string): string | null {
    for (const match of prompt.matchAll(/\d{14}/g)) if (this.knownFiling(match[0])) return match[0];
    return null;
  }
}
