// How every benchmark script ends: its exit code is main's result (0 when main resolves to nothing),
// 1 with the error printed when main throws.
export function runMain(main: () => Promise<number | undefined> | Promise<void>): void {
  main().then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
