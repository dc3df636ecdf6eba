import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { programFolder, windowsProgram } from '../common/programs.ts';

// Windows looks for a program in the current folder before PATH: deepwork names Windows' own by full path and starts
// every program outside the project (issue 23).
describe('programFolder and windowsProgram', () => {
  it('starts programs in System32 on Windows and in / elsewhere, never in the current folder', () => {
    assert.equal(programFolder('win32', { SystemRoot: 'D:\\Windows' }), 'D:\\Windows\\System32');
    assert.equal(programFolder('linux', { SystemRoot: 'D:\\Windows' }), '/');
    assert.equal(programFolder('darwin', {}), '/');
  });

  it("names Windows' own programs by their full path, with C:\\Windows when SystemRoot is missing or not a full path", () => {
    assert.equal(windowsProgram('cmd.exe', { SystemRoot: 'D:\\Windows' }), 'D:\\Windows\\System32\\cmd.exe');
    assert.equal(
      windowsProgram('WindowsPowerShell\\v1.0\\powershell.exe', { windir: 'C:\\WINNT' }),
      'C:\\WINNT\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    );
    for (const env of [{}, { SystemRoot: '' }, { SystemRoot: '.' }, { SystemRoot: 'Windows' }])
      assert.equal(windowsProgram('cmd.exe', env), 'C:\\Windows\\System32\\cmd.exe');
  });
});
