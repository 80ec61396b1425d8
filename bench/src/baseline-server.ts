// The benchmark's baselines: a bare Koa handler with one insertOne/findOne through the same MongoDB driver
// (BASELINE=mongo), or with no database at all (BASELINE=none). No validation, no auth, no services.
import Koa from 'koa';
import { MongoClient } from '@checkout/mongo';
import { randomBytes } from 'node:crypto';

const { PORT = '0', BASELINE = 'none', MONGODB_URL = '', MONGODB_DATABASE = 'bench_baseline' } = process.env;
const collection =
  BASELINE === 'mongo'
    ? (await new MongoClient(MONGODB_URL, { maxPoolSize: 50 }).connect())
        .db(MONGODB_DATABASE)
        .collection<{ _id: string }>('orders')
    : undefined;
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'POST') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const doc = {
      _id: `ord_test_${randomBytes(12).toString('hex')}`,
      ...(JSON.parse(Buffer.concat(chunks).toString()) as object),
      createdAt: new Date(),
    };
    await collection?.insertOne(doc);
    ctx.status = 201;
    ctx.body = { order: doc };
  } else {
    const id = ctx.path.split('/').pop() ?? '';
    ctx.body = { order: collection ? await collection.findOne({ _id: id }) : { id } };
  }
});
const server = app.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : ''}\n`);
});
