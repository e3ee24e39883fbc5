package io.nemolens.app.packaging;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * What a shipped jar must not hold, read from its bytes (and those of the jars nested in it, as an exec jar's
 * {@code BOOT-INF/lib/}): in this project's classes ({@code io/nemolens/}), a call of {@code Runtime.halt} but in
 * the consumer's out-of-memory halt, or a reference to a crash point or a test fault (the strings of their
 * classes and system properties, in the class-file constant pool); and in any jar, an {@code application.yml},
 * {@code .yaml} or {@code .properties} (profiles included) where Spring Boot looks for one on the class path: the
 * service's own defaults are {@code io/nemolens/app/service.yml}, read for the service alone, the generator's are
 * in code.
 */
final class ShippedJars {

    /** The one class of main code that halts: the consumer on an out-of-memory error (docs/configuration.md). */
    static final Set<String> MAY_HALT = Set.of("io/nemolens/consumer/error/OutOfMemoryHalt.class");

    /** Strings of the crash hooks that were in shipped code, and of the faults that live in test scope now. */
    static final List<String> HOOKS =
            List.of("crash-at", "CrashPoint", "test.halt-at", "io/nemolens/archive/testing/", "HaltAt");

    private static final Pattern APPLICATION_CONFIG = Pattern.compile(
            "(BOOT-INF/classes/|WEB-INF/classes/)?(config/)?application(-[^/]*)?\\.(yml|yaml|properties)");

    private ShippedJars() {}

    /** The violations in {@code jar}, each as {@code jar!entry: what}; the jars nested in it are read as well. */
    static List<String> violations(Path jar) throws IOException {
        List<String> found = new ArrayList<>();
        try (InputStream in = Files.newInputStream(jar)) {
            scan(jar.getFileName().toString(), in, found);
        }
        return found;
    }

    private static void scan(String name, InputStream jar, List<String> found) throws IOException {
        ZipInputStream zip = new ZipInputStream(jar);
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            String path = entry.getName();
            if (entry.isDirectory()) {
                continue;
            }
            if (path.endsWith(".jar")) {
                scan(name + "!" + path, new NonClosing(zip), found);
            } else if (APPLICATION_CONFIG.matcher(path).matches()) {
                found.add(name + "!" + path + ": application configuration, which shadows an application's own");
            } else if (path.endsWith(".class") && ourClass(path)) {
                String className = path.replaceFirst("^BOOT-INF/classes/", "");
                ConstantPool pool = ConstantPool.read(zip.readAllBytes());
                if (pool.callsMethod("java/lang/Runtime", "halt") && !MAY_HALT.contains(className)) {
                    found.add(name + "!" + path + ": calls Runtime.halt");
                }
                for (String hook : HOOKS) {
                    if (pool.mentions(hook)) {
                        found.add(name + "!" + path + ": refers to " + hook);
                    }
                }
            }
        }
    }

    private static boolean ourClass(String path) {
        return path.startsWith("io/nemolens/") || path.startsWith("BOOT-INF/classes/io/nemolens/");
    }

    /** A nested jar's stream: reading it to its end must not close the outer jar. */
    private static final class NonClosing extends java.io.FilterInputStream {
        NonClosing(InputStream in) {
            super(in);
        }

        @Override
        public void close() {}
    }

    /** The constant pool of a class file: its strings, and the methods it refers to. */
    static final class ConstantPool {

        private final Map<Integer, String> utf8 = new HashMap<>();
        private final Map<Integer, Integer> classes = new HashMap<>();
        private final List<int[]> methodRefs = new ArrayList<>();
        private final Map<Integer, Integer> nameAndTypeNames = new HashMap<>();

        static ConstantPool read(byte[] classFile) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort(); // minor
            in.readUnsignedShort(); // major
            ConstantPool pool = new ConstantPool();
            int count = in.readUnsignedShort();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> pool.utf8.put(i, in.readUTF());
                    case 7 -> pool.classes.put(i, in.readUnsignedShort());
                    case 10, 11 -> pool.methodRefs.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()});
                    case 12 -> {
                        pool.nameAndTypeNames.put(i, in.readUnsignedShort());
                        in.readUnsignedShort();
                    }
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> in.skipNBytes(3);
                    case 3, 4, 9, 17, 18 -> in.skipNBytes(4);
                    case 5, 6 -> {
                        in.skipNBytes(8);
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("constant pool tag " + tag + " unknown");
                }
            }
            return pool;
        }

        /** Whether a string of the class (a name, a descriptor, a literal) contains {@code text}. */
        boolean mentions(String text) {
            return utf8.values().stream().anyMatch(s -> s.contains(text));
        }

        /** Whether the class refers to the method {@code name} of {@code owner} (internal name). */
        boolean callsMethod(String owner, String name) {
            for (int[] ref : methodRefs) {
                Integer ownerName = classes.get(ref[0]);
                Integer methodName = nameAndTypeNames.get(ref[1]);
                if (ownerName != null
                        && methodName != null
                        && owner.equals(utf8.get(ownerName))
                        && name.equals(utf8.get(methodName))) {
                    return true;
                }
            }
            return false;
        }
    }
}
