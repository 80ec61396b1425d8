// What other packages use of the MongoDB driver, re-exported: only this lib imports the driver (a lint rule), so
// its version, and which of its types the services depend on, are this lib's business. Add here what is missing.
export { BSON, GridFSBucket, MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
export type {
  AnyBulkWriteOperation,
  Collection,
  Db,
  Document,
  Filter,
  FindCursor,
  OptionalUnlessRequiredId,
  PushOperator,
  UpdateFilter,
} from 'mongodb';
