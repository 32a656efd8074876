"""Turn a plan into tables, the terminal summary and the Excel workbook."""
