import java.net.InetSocketAddress;
import java.util.List;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * Starts mongo-java-server for the checkout project's tests and local stack (see docs/engines.md).
 *
 * Usage: CheckoutMongoServer <host> <port> h2 <file> | CheckoutMongoServer <host> <port> memory
 *
 * Compiled by libs/engines at provisioning time and cached next to the jars; written here rather than
 * taken from mongo-java-server because two things are ours to decide:
 *  - the H2 backend on a file, closed (and so committed) on SIGTERM, so that a stop/start of the engine
 *    keeps the data, as a MongoDB restart would;
 *  - the wire version it announces (see WIRE_VERSION);
 *  - one worker thread, which makes single-document updates atomic (see main).
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
        MongoBackend backend = args[2].equals("h2") ? new H2Backend(args[3]) : new MemoryBackend();
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
}
