package io.nemolens.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads an archive back with DuckDB, an independent Parquet reader. */
public final class ArchiveReader implements AutoCloseable {

    private final Connection connection;
    private final Path root;

    public ArchiveReader(Path root) throws SQLException {
        this.root = root;
        this.connection = DriverManager.getConnection("jdbc:duckdb:");
    }

    /** The {@code read_parquet(...)} expression for a table's committed files. */
    public String table(String name) {
        return "read_parquet('" + root.toAbsolutePath().resolve(name) + "/**/*.parquet', hive_partitioning = false)";
    }

    /** Runs a query; {@code %s} placeholders in it are replaced by table expressions for the given tables. */
    public List<Map<String, Object>> query(String sql, String... tables) throws SQLException {
        Object[] exprs = new Object[tables.length];
        for (int i = 0; i < tables.length; i++) {
            exprs[i] = table(tables[i]);
        }
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery(sql.formatted(exprs))) {
            ResultSetMetaData md = rs.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int c = 1; c <= md.getColumnCount(); c++) {
                    row.put(md.getColumnLabel(c), rs.getObject(c));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** A single value. */
    public Object scalar(String sql, String... tables) throws SQLException {
        return query(sql, tables).get(0).values().iterator().next();
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
