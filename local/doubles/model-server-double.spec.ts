import { chatCompletion, startModelServerDouble } from './model-server-double';

describe('startModelServerDouble', () => {
  it('answers when a promised answer settles, as a slow model does', async () => {
    const model = await startModelServerDouble();
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let asked!: () => void;
      const reachedTheModel = new Promise<void>((resolve) => (asked = resolve));
      model.answerWith(async () => {
        asked();
        await released;
        return chatCompletion('{"ok":true}');
      });
      let answered = false;
      const response = fetch(`${model.url}/v1/chat/completions`, { method: 'POST', body: '{}' }).then((res) => {
        answered = true;
        return res.json() as Promise<{ choices: Array<{ message: { content: string } }> }>;
      });
      // The request is with the model, which has not answered: nor has the server.
      await reachedTheModel;
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      release();
      expect((await response).choices[0].message.content).toBe('{"ok":true}');
      expect(model.requests).toHaveLength(1);
    } finally {
      await model.close();
    }
  });
});
