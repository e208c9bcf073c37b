package colabench;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Runs an embedded Neo4j Community DBMS with the Bolt connector on a loopback address.
 * Arguments: HOME_DIR HOST PORT PAGECACHE_MIB TX_TOTAL_MAX_MIB TX_MAX_MIB: the heap all transactions together may
 * take (dbms.memory.transaction.total.max) and the heap one transaction may take (db.memory.transaction.max).
 * Prints "COLABENCH-NEO4J-READY" once Bolt accepts connections and shuts the DBMS down cleanly on SIGTERM/SIGINT.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: Neo4jLauncher HOME_DIR HOST PORT PAGECACHE_MIB TX_TOTAL_MAX_MIB TX_MAX_MIB");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        String host = args[1];
        int port = Integer.parseInt(args[2]);
        long pagecache = Long.parseLong(args[3]);
        long txTotalMax = Long.parseLong(args[4]);
        long txMax = Long.parseLong(args[5]);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecache))
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size, ByteUnit.mebiBytes(txTotalMax))
                .setConfig(GraphDatabaseSettings.memory_transaction_max_size, ByteUnit.mebiBytes(txMax))
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("COLABENCH-NEO4J-STOPPING");
            System.out.flush();
            dbms.shutdown();
            stopped.countDown();
        }, "colabench-neo4j-shutdown"));

        // Touch the default database so the first client query does not pay its start-up.
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        System.out.println("COLABENCH-NEO4J-READY bolt://" + host + ":" + port + " home=" + home);
        System.out.flush();
        stopped.await();
    }
}
