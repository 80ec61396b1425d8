import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;

/**
 * Starts mongo-java-server for the checkout project's tests and local stack (see docs/engines.md).
 *
 * Usage: CheckoutMongoServer <host> <port> h2 <file> | CheckoutMongoServer <host> <port> memory
 *
 * Compiled by testkit/engines at provisioning time and cached next to the jars; written here rather than
 * taken from mongo-java-server because two things are ours to decide:
 *  - the H2 backend on a file, closed (and so committed) on SIGTERM, so that a stop/start of the engine
 *    keeps the data, as a MongoDB restart would;
 *  - the wire version it announces (see WIRE_VERSION);
 *  - one worker thread, which makes single-document updates atomic (see main);
 *  - a query planner that uses a unique index for a filter naming its fields and more (see IndexedH2Collection).
 */
public final class CheckoutMongoServer {

    /**
     * mongo-java-server 1.47's newest ServerVersion (MONGO_5_0) announces maxWireVersion 8, and the Node.js
     * driver 7 refuses any server below 9 (MIN_SUPPORTED_WIRE_VERSION in mongodb/lib/cmap/wire_protocol/constants.js).
     * MongoBackend.version() takes any MongoVersion, and the server uses it only for hello/isMaster
     * (maxWireVersion) and buildInfo (version), so we announce 4.4 / wire 9: the lowest the driver accepts,
     * which keeps the driver from relying on anything newer. It does not make the emulator a MongoDB 4.4.
     */
    static final int WIRE_VERSION = 9;

    private static final MongoVersion VERSION = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(4, 4, 0);
        }

        @Override
        public int getWireVersion() {
            return WIRE_VERSION;
        }
    };

    public static void main(String[] args) {
        if (args.length < 3 || (args[2].equals("h2") && args.length != 4) || !(args[2].equals("h2") || args[2].equals("memory"))) {
            System.err.println("usage: CheckoutMongoServer <host> <port> h2 <file> | <host> <port> memory");
            System.exit(2);
        }
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        MongoBackend backend = args[2].equals("h2") ? new IndexedH2Backend(MVStore.open(args[3])) : new MemoryBackend();
        backend.version(VERSION);
        MongoServer server = new MongoServer(backend);
        // SIGTERM (from the guard, on stop) runs this hook: shutdownNow() drops the clients and closes the backend, which commits and
        // closes the H2 store; without it the last writes before a stop could be lost.
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "checkout-mongo-shutdown"));
        // One Netty worker thread. mongo-java-server's backends take no lock around a findAndModify or an update
        // (read the matching document, apply the operators, store it), and Netty's default is 2 threads per core,
        // so two connections could interleave one document's read and write. With one worker every command runs
        // to completion before the next starts: single-document updates are atomic by construction, as on
        // MongoDB, not by the luck of timing. The cost is one core for the engine, which is what a test machine
        // gives it anyway.
        server.bind(new InetSocketAddress(host, port), 1, 1);
        System.out.println("mongo-java-server listening on " + host + ":" + port + " (" + args[2] + ")");
    }

    /** H2Backend whose databases hand out IndexedH2Collections. */
    static final class IndexedH2Backend extends H2Backend {
        IndexedH2Backend(MVStore store) {
            super(store);
        }

        @Override
        protected MongoDatabase openOrCreateDatabase(String databaseName) {
            return new IndexedH2Database(databaseName, getMvStore(), getCursorRegistry());
        }
    }

    /** H2Database whose collections are IndexedH2Collections, on the same maps H2Database itself would open. */
    static final class IndexedH2Database extends H2Database {
        // H2Database keeps its store private and opens its existing collections from its own constructor, before a
        // field of this subclass could be set, so the store is read from H2Database's field.
        private static final Field STORE = storeField();

        IndexedH2Database(String databaseName, MVStore store, CursorRegistry cursorRegistry) {
            super(databaseName, store, cursorRegistry);
        }

        @Override
        protected MongoCollection<Object> openOrCreateCollection(String collectionName, CollectionOptions options) {
            MVStore store = store();
            String fullName = getFullCollectionNamespace(collectionName);
            // The map names H2Database.openOrCreateCollection uses (its prefixes are package-private), so that data
            // written by a plain H2Backend opens here unchanged, and the other way round.
            MVMap<Object, Document> dataMap = store.openMap("databases." + fullName);
            MVMap<String, Object> metaMap = store.openMap("meta." + fullName);
            return new IndexedH2Collection(this, collectionName, options, dataMap, metaMap, cursorRegistry);
        }

        private MVStore store() {
            try {
                return (MVStore) STORE.get(this);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        private static Field storeField() {
            try {
                Field field = H2Database.class.getDeclaredField("mvStore");
                field.setAccessible(true);
                return field;
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("mongo-java-server's H2Database has no mvStore field; update the launcher", e);
            }
        }
    }

    /**
     * mongo-java-server uses an index only when the filter names exactly that index's fields
     * (AbstractUniqueIndex.canHandle compares the key sets), so {_id, organizationId, mode} or
     * {_id, revision} -- every tenant-scoped read and every conditional write of this project -- reads the whole
     * collection, slower the larger it grows. MongoDB answers such a filter through the _id index and checks the
     * other fields on the one document it finds. This collection does the same: when no index handles the filter
     * as a whole, a unique index whose every field the filter names with a plain value (no operator, array,
     * regular expression or null) yields the candidate documents, and the whole filter is matched against them.
     * The answer is the same as a scan's; only the work differs.
     */
    static final class IndexedH2Collection extends H2Collection {
        IndexedH2Collection(MongoDatabase database, String collectionName, CollectionOptions options,
                            MVMap<Object, Document> dataMap, MVMap<String, Object> metaMap, CursorRegistry cursorRegistry) {
            super(database, collectionName, options, dataMap, metaMap, cursorRegistry);
        }

        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                             Document fieldSelector) {
            List<Index<Object>> indexes = getIndexes();
            for (Index<Object> index : indexes) {
                if (index.canHandle(query)) {
                    return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
            }
            for (Index<Object> index : indexes) {
                Document equalities = equalitiesOnKeys(index, query);
                if (equalities != null && index.canHandle(equalities)) {
                    return matchDocuments(query, index.getPositions(equalities), orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
            }
            for (Index<Object> index : indexes) {
                List<Object> positions = positionsOfIdsIn(index, query);
                if (positions != null) {
                    return matchDocuments(query, positions, orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
            }
            return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
        }

        /**
         * {_id: {$in: [plain values]}} (a batch read or write by ids, with or without more conditions): the documents
         * of those ids through the _id index, as MongoDB's plan does, instead of a scan. Null for any other filter.
         * Only _id, which never holds an array, so each value names at most one document.
         */
        private static List<Object> positionsOfIdsIn(Index<Object> index, Document query) {
            List<IndexKey> keys = index.getKeys();
            if (keys.size() != 1 || !"_id".equals(keys.get(0).getKey())) return null;
            if (!(query.get("_id") instanceof Document condition) || condition.size() != 1) return null;
            if (!(condition.get("$in") instanceof Collection<?> values)) return null;
            Set<Object> positions = new LinkedHashSet<>();
            for (Object value : values) {
                if (!isPlain(value)) return null;
                Document equality = new Document("_id", value);
                if (!index.canHandle(equality)) return null;
                for (Object position : index.getPositions(equality)) positions.add(position);
            }
            return new ArrayList<>(positions);
        }

        /** A value an equality on an index can look up: no operator, array, regular expression or null. */
        private static boolean isPlain(Object value) {
            return value != null && !(value instanceof Document) && !(value instanceof Collection) && !(value instanceof Pattern)
                && !(value instanceof BsonRegularExpression);
        }

        /** The filter's plain-value conditions on exactly the index's fields, or null if it lacks one. */
        private static Document equalitiesOnKeys(Index<Object> index, Document query) {
            if (!index.isUnique()) return null;
            Document equalities = new Document();
            for (IndexKey key : index.getKeys()) {
                Object value = query.get(key.getKey());
                if (!isPlain(value)) return null;
                equalities.put(key.getKey(), value);
            }
            return equalities;
        }
    }
}
