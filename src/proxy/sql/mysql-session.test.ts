import { expect } from 'chai';
import { sessionSql } from './mysql-session.js';

describe('sessionSql: the SET SESSION each MySQL or MariaDB query starts with', () => {
  it("names each server's read-only and timeout variables by its greeting's version", () => {
    expect(sessionSql('5.5.5-10.11.19-MariaDB-0+deb12u1', 1500, [])).to.equal(
      "SET SESSION time_zone = '+00:00', SESSION tx_read_only = 1, SESSION max_statement_time = 1.500",
    );
    expect(sessionSql('11.4.2-MariaDB', 30_000, [])).to.equal(
      "SET SESSION time_zone = '+00:00', SESSION transaction_read_only = 1, SESSION max_statement_time = 30.000",
    );
    expect(sessionSql('8.0.36', 30_000, [])).to.equal(
      "SET SESSION time_zone = '+00:00', SESSION transaction_read_only = 1, SESSION max_execution_time = 30000",
    );
    expect(sessionSql('5.7.19-log', 1000, [])).to.contain('SESSION tx_read_only = 1');
  });

  it("appends the datasource's session variables after dashplane's", () => {
    expect(
      sessionSql('8.4.0', 1000, [
        ['sql_mode', "'ANSI_QUOTES'"],
        ['div_precision_increment', '8'],
      ]),
    ).to.equal(
      "SET SESSION time_zone = '+00:00', SESSION transaction_read_only = 1, SESSION max_execution_time = 1000, SESSION sql_mode = 'ANSI_QUOTES', SESSION div_precision_increment = 8",
    );
  });
});
