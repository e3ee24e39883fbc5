package io.nemolens.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A TCP forwarder in front of the test broker, so that a test can make "the broker" go away for one
 * application (cut every connection, refuse new ones) and come back on the same port, without
 * stopping the shared broker; or make an application fall silent to the broker while deliveries still
 * reach it ({@link #dropClientBytes()}: its acknowledgements never arrive).
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile @Nullable ServerSocket server;
    private volatile boolean dropClientBytes;
    private volatile boolean silent;
    private int port;

    public TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    /** A proxy in front of the test broker ({@link TestBroker}), listening. */
    public static TcpProxy toTestBroker() throws IOException {
        Map<String, Object> broker = TestBroker.get().springProperties();
        return new TcpProxy(
                        String.valueOf(broker.get("spring.rabbitmq.host")),
                        Integer.parseInt(String.valueOf(broker.get("spring.rabbitmq.port"))))
                .start();
    }

    /** The {@code spring.rabbitmq.host} and {@code spring.rabbitmq.port} that point an application at this proxy. */
    public Map<String, Object> springProperties() {
        return Map.of("spring.rabbitmq.host", "127.0.0.1", "spring.rabbitmq.port", port);
    }

    /** Starts listening (on a free port the first time, on the same port afterwards). */
    public synchronized TcpProxy start() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
        port = s.getLocalPort();
        server = s;
        Thread acceptor = new Thread(() -> accept(s), "tcp-proxy-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
        return this;
    }

    public int port() {
        return port;
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                // closed, or the broker refused: the client sees its connection drop
            }
        }
    }

    /**
     * From now on, what clients send is read and thrown away, never forwarded: to the broker they fall
     * silent (their acknowledgements never arrive), while what the broker sends still reaches them. Until
     * {@link #stop()}, which cuts the connections: the broker then takes back what it delivered.
     */
    public void dropClientBytes() {
        dropClientBytes = true;
    }

    /**
     * From now on nothing passes either way, while every connection stays open (and new ones are taken, and fall
     * silent too): to each end the other has stopped answering without closing, as behind a dead route or a load
     * balancer whose node died; only heartbeats notice. Until {@link #stop()}.
     */
    public void silence() {
        silent = true;
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try {
                        InputStream in = from.getInputStream();
                        OutputStream out = to.getOutputStream();
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            if (silent || (fromClient && dropClientBytes)) {
                                continue;
                            }
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed
                    } finally {
                        closeQuietly(from);
                        if (!silent) {
                            closeQuietly(to);
                        } // silent, the other end notices nothing, as behind a dead route (stop() cuts it)
                    }
                },
                "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Cuts every connection and stops listening: to its clients the broker is gone. */
    public synchronized void stop() {
        closeQuietly(server);
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
        dropClientBytes = false;
        silent = false;
    }

    @Override
    public void close() {
        stop();
    }

    private static void closeQuietly(@Nullable AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception e) {
            // closing anyway
        }
    }
}
